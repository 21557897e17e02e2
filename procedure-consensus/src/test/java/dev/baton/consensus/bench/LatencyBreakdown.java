package dev.baton.consensus.bench;

import dev.baton.consensus.LatencyHistogram;
import dev.baton.consensus.WriteTimings;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where a procedure's submit-to-done time goes during one load phase: per procedure, the submission
 * commit, the wait for its first step, each step-to-step gap (the step's store write, its group
 * commit and Raft commit, and the executor re-queueing the procedure), the last write; beside them
 * the leader's group-commit timings, garbage collection and CPU.
 */
final class LatencyBreakdown {
  /** Segments of one procedure's life, by their index in a sample. */
  static final String[] SEGMENTS = {
    "submit -> procId (submission committed)",
    "submit -> step 1 starts",
    "step 1 -> step 2 (write + re-queue)",
    "step 2 -> step 3 (write + re-queue)",
    "step 3 -> done (final write)",
    "total submit -> done"
  };

  private static final int TOTAL = SEGMENTS.length - 1;
  private static final int STARTED = SEGMENTS.length;
  private static final int DONE = SEGMENTS.length + 1;
  private static final int FIELDS = DONE + 1;
  private static final double TAIL = 0.99;
  private static final double NANOS_PER_MILLI = 1e6;

  /** Per sample, its fields one after the other; allocated up front (see {@link StepTrace}). */
  private final long[] samples;

  private final int capacity;
  private final AtomicInteger count = new AtomicInteger();
  private final StepTrace stepStarts;
  private final WriteTimings timings;
  private final long gcCount0 = gcCount();
  private final long gcMillis0 = gcMillis();
  private final long cpu0 = processCpuNanos();
  private final long start = System.nanoTime();

  private final StallWatch stalls;

  /**
   * @param firstId the lowest procId to trace (the next to be submitted)
   * @param capacity the most procedures traced
   */
  LatencyBreakdown(WriteTimings leaderTimings, StallWatch stalls, long firstId, int capacity) {
    this.timings = leaderTimings;
    this.stalls = stalls;
    this.capacity = capacity;
    this.samples = new long[Math.multiplyExact(capacity, FIELDS)];
    this.stepStarts = BenchProcedures.traceSteps(firstId, capacity);
    timings.reset();
  }

  /**
   * One finished procedure: submitted at {@code t0}, id known at {@code tId}, done at {@code
   * tDone}.
   */
  void record(long procId, long t0, long tId, long tDone) {
    long s0 = stepStarts.start(procId, 0);
    long s1 = stepStarts.start(procId, 1);
    long s2 = stepStarts.start(procId, 2);
    if (s0 == 0 || s1 == 0 || s2 == 0) {
      return;
    }
    int i = count.getAndIncrement();
    if (i >= capacity) {
      return;
    }
    int at = i * FIELDS;
    samples[at] = tId - t0;
    samples[at + 1] = s0 - t0;
    samples[at + 2] = s1 - s0;
    samples[at + 3] = s2 - s1;
    samples[at + 4] = tDone - s2;
    samples[at + TOTAL] = tDone - t0;
    samples[at + STARTED] = t0;
    samples[at + DONE] = tDone;
  }

  /** Prints the breakdown; stops tracing steps. */
  List<String> report() {
    BenchProcedures.stopTracing();
    double secs = (System.nanoTime() - start) / 1e9;
    List<long[]> all = new ArrayList<>();
    for (int i = 0; i < Math.min(count.get(), capacity); i++) {
      all.add(Arrays.copyOfRange(samples, i * FIELDS, (i + 1) * FIELDS));
    }
    List<String> lines = new ArrayList<>();
    if (all.isEmpty()) {
      lines.add("no traced procedure finished");
      return lines;
    }
    all.sort(Comparator.comparingLong(s -> s[TOTAL]));
    List<long[]> tail = all.subList((int) Math.min(all.size() - 1, TAIL * all.size()), all.size());
    lines.add(
        String.format(
            Locale.ROOT,
            "%-42s %9s %9s %9s   (%d procedures; tail = the slowest %d)",
            "segment",
            "p50 ms",
            "p99 ms",
            "tail ms",
            all.size(),
            tail.size()));
    for (int seg = 0; seg < SEGMENTS.length; seg++) {
      long[] v = new long[all.size()];
      for (int i = 0; i < v.length; i++) {
        v[i] = all.get(i)[seg];
      }
      Arrays.sort(v);
      double tailMean = 0;
      for (long[] s : tail) {
        tailMean += s[seg];
      }
      tailMean /= tail.size();
      lines.add(
          String.format(
              Locale.ROOT,
              "%-42s %9.2f %9.2f %9.2f",
              SEGMENTS[seg],
              v[v.length / 2] / NANOS_PER_MILLI,
              v[(int) Math.min(v.length - 1, TAIL * v.length)] / NANOS_PER_MILLI,
              tailMean / NANOS_PER_MILLI));
    }
    lines.add(
        String.format(
            Locale.ROOT,
            "overlapping a GC pause: %.1f %% of all, %.1f %% of the tail (%d pauses); overlapping a"
                + " snapshot of any node: %.1f %% of all, %.1f %% of the tail (%d snapshots)",
            share(all, true),
            share(tail, true),
            stalls.gcPauseCount(),
            share(all, false),
            share(tail, false),
            stalls.snapshotCount()));
    List<LatencyHistogram> snapshotCalls = stalls.snapshotApplyBlocking();
    List<LatencyHistogram> snapshotWrites = stalls.snapshotWriteTimes();
    for (int i = 0; i < snapshotCalls.size(); i++) {
      lines.add(
          withMax(
              "node " + (i + 1) + ": takeSnapshot() on the apply thread", snapshotCalls.get(i)));
      lines.add(
          withMax(
              "node " + (i + 1) + ": snapshot written in the background", snapshotWrites.get(i)));
    }
    lines.add(histogramLine("leader: write waits in group commit", timings.queued()));
    lines.add(histogramLine("leader: entry sent -> applied reply", timings.committed()));
    lines.add(histogramLine("leader: apply of one write entry", timings.applied()));
    long gcs = gcCount() - gcCount0;
    long gcMillis = gcMillis() - gcMillis0;
    lines.add(
        String.format(
            Locale.ROOT,
            "GC: %d collections, %d ms in all (%.1f ms/s); process CPU %.2f cores over %.1f s",
            gcs,
            gcMillis,
            gcMillis / secs,
            (processCpuNanos() - cpu0) / 1e9 / secs,
            secs));
    return lines;
  }

  /** Percent of the samples whose lifetime overlaps a GC pause ({@code gc}) or a snapshot. */
  private double share(List<long[]> samples, boolean gc) {
    long n = 0;
    for (long[] s : samples) {
      if (gc
          ? stalls.overlapsGc(s[STARTED], s[DONE])
          : stalls.overlapsSnapshot(s[STARTED], s[DONE])) {
        n++;
      }
    }
    return 100.0 * n / samples.size();
  }

  private static String withMax(String name, LatencyHistogram h) {
    return histogramLine(name, h, String.format(Locale.ROOT, "max %.2f ms", max(h)));
  }

  /** With p99.9 and the max: one stall (a slow disk flush, say) hides in the p99.9. */
  private static String histogramLine(String name, LatencyHistogram h) {
    return histogramLine(
        name,
        h,
        String.format(
            Locale.ROOT, "p99.9 %.2f ms, max %.2f ms", h.percentileMillis(0.999), max(h)));
  }

  private static double max(LatencyHistogram h) {
    return h.percentileMillis(1.0);
  }

  /** p50, the tail percentile and {@code more} of {@code h}, in ms. */
  private static String histogramLine(String name, LatencyHistogram h, String more) {
    return String.format(
        Locale.ROOT,
        "%-42s %9.2f %9.2f   (%d; %s)",
        name,
        h.percentileMillis(0.5),
        h.percentileMillis(TAIL),
        h.count(),
        more);
  }

  static long gcCount() {
    long n = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      n += Math.max(0, gc.getCollectionCount());
    }
    return n;
  }

  static long gcMillis() {
    long n = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      n += Math.max(0, gc.getCollectionTime());
    }
    return n;
  }

  private static long processCpuNanos() {
    return ManagementFactory.getOperatingSystemMXBean()
            instanceof com.sun.management.OperatingSystemMXBean os
        ? os.getProcessCpuTime()
        : 0;
  }
}
