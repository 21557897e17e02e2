package dev.baton.consensus.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import dev.baton.consensus.LatencyHistogram;
import dev.baton.consensus.StateMachineMetrics;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * Whole-JVM stalls during a load phase, to attribute slow procedures: garbage-collection pauses
 * (from the collectors' notifications) and state-machine snapshots of any node (seen by polling
 * each node's latest snapshot index).
 */
final class StallWatch implements AutoCloseable {
  /** How often the snapshot poller looks. */
  static final long POLL_MILLIS = 2;

  /** [start, end] System.nanoTime() of each pause or snapshot seen. */
  private final ConcurrentLinkedQueue<long[]> gcPauses = new ConcurrentLinkedQueue<>();

  private final ConcurrentLinkedQueue<long[]> snapshots = new ConcurrentLinkedQueue<>();
  private final List<NotificationEmitter> emitters = new ArrayList<>();
  private final NotificationListener listener = this::onGc;
  private final ScheduledExecutorService poller =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "bench-stall-watch");
            t.setDaemon(true);
            return t;
          });

  private final Supplier<List<StateMachineMetrics>> machines;

  /** Latest snapshot index of each node at the previous poll (poller thread only). */
  private final List<Long> lastSnapshot = new ArrayList<>();

  StallWatch(Supplier<List<StateMachineMetrics>> machines) {
    this.machines = machines;
    for (StateMachineMetrics m : machines.get()) {
      m.snapshotApplyBlocking().reset();
      m.snapshotWriteTimes().reset();
    }
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener(listener, null, null);
        emitters.add(emitter);
      }
    }
    poller.scheduleAtFixedRate(
        () -> pollSnapshots(machines), 0, POLL_MILLIS, TimeUnit.MILLISECONDS);
  }

  private void onGc(Notification n, Object handback) {
    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
      return;
    }
    GarbageCollectionNotificationInfo info =
        GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
    if (info.getGcAction().contains("concurrent") || info.getGcName().contains("Concurrent")) {
      return; // not a pause
    }
    // the notification may arrive late; the pause's own start and end (JVM uptime, ms) do not
    long nowNanos = System.nanoTime();
    long nowUptime = ManagementFactory.getRuntimeMXBean().getUptime();
    gcPauses.add(
        new long[] {
          nowNanos - TimeUnit.MILLISECONDS.toNanos(nowUptime - info.getGcInfo().getStartTime()),
          nowNanos - TimeUnit.MILLISECONDS.toNanos(nowUptime - info.getGcInfo().getEndTime())
        });
  }

  private void pollSnapshots(Supplier<List<StateMachineMetrics>> machines) {
    List<StateMachineMetrics> now = machines.get();
    for (int i = 0; i < now.size(); i++) {
      long index = now.get(i).snapshotIndex();
      if (i >= lastSnapshot.size()) {
        lastSnapshot.add(index);
      } else if (lastSnapshot.get(i) != index) {
        lastSnapshot.set(i, index);
        long t = System.nanoTime();
        snapshots.add(new long[] {t - TimeUnit.MILLISECONDS.toNanos(POLL_MILLIS), t});
      }
    }
  }

  /** How long each node's takeSnapshot() calls held its apply thread since this watch started. */
  List<LatencyHistogram> snapshotApplyBlocking() {
    List<LatencyHistogram> out = new ArrayList<>();
    for (StateMachineMetrics m : machines.get()) {
      out.add(m.snapshotApplyBlocking());
    }
    return out;
  }

  /** How long each node's background snapshot writes took since this watch started. */
  List<LatencyHistogram> snapshotWriteTimes() {
    List<LatencyHistogram> out = new ArrayList<>();
    for (StateMachineMetrics m : machines.get()) {
      out.add(m.snapshotWriteTimes());
    }
    return out;
  }

  int gcPauseCount() {
    return gcPauses.size();
  }

  int snapshotCount() {
    return snapshots.size();
  }

  boolean overlapsGc(long from, long to) {
    return overlaps(gcPauses, from, to);
  }

  boolean overlapsSnapshot(long from, long to) {
    return overlaps(snapshots, from, to);
  }

  private static boolean overlaps(ConcurrentLinkedQueue<long[]> intervals, long from, long to) {
    for (long[] i : intervals) {
      if (i[0] <= to && i[1] >= from) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void close() {
    poller.shutdownNow();
    for (NotificationEmitter e : emitters) {
      try {
        e.removeNotificationListener(listener);
      } catch (ListenerNotFoundException ignored) {
        // never added
      }
    }
  }
}
