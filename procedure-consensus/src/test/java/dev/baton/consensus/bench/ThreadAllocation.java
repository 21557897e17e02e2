package dev.baton.consensus.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Bytes the JVM's threads allocated over one benchmark phase, by thread kind (digits folded), from
 * the JVM's exact per-thread counters (no sampling). Allocation drives young collections, whose
 * pauses stop all three nodes of the benchmark's one JVM at once. Threads that end during the phase
 * take their bytes with them.
 */
final class ThreadAllocation {
  private static final double BYTES_PER_MB = 1 << 20;

  private final com.sun.management.ThreadMXBean threads =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
  private final Map<Long, String> names = new HashMap<>();
  private final Map<Long, Long> start = snapshot();
  private final long startNanos = System.nanoTime();

  /** Lines: the rate in all, per procedure, and the kinds of threads that allocated most. */
  List<String> report(double procedures) {
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    Map<Long, Long> end = snapshot();
    Map<String, Long> byKind = new HashMap<>();
    long total = 0;
    for (Map.Entry<Long, Long> e : end.entrySet()) {
      long bytes = e.getValue() - start.getOrDefault(e.getKey(), 0L);
      if (bytes > 0) {
        total += bytes;
        byKind.merge(names.get(e.getKey()).replaceAll("\\d+", "#"), bytes, Long::sum);
      }
    }
    List<String> lines = new ArrayList<>();
    lines.add(
        String.format(
            Locale.ROOT,
            "allocated: %.0f MB/s, %.1f KB per procedure",
            total / BYTES_PER_MB / seconds,
            procedures == 0 ? 0 : total / 1024.0 / procedures));
    CpuProfile.table(lines, "by thread (digits folded)", byKind, total);
    return lines;
  }

  private Map<Long, Long> snapshot() {
    long[] ids = threads.getAllThreadIds();
    long[] bytes = threads.getThreadAllocatedBytes(ids);
    ThreadInfo[] infos = threads.getThreadInfo(ids);
    Map<Long, Long> m = new HashMap<>();
    for (int i = 0; i < ids.length; i++) {
      if (infos[i] != null && bytes[i] >= 0) {
        m.put(ids[i], bytes[i]);
        names.put(ids[i], infos[i].getThreadName());
      }
    }
    return m;
  }
}
