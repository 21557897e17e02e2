package dev.baton.consensus.bench;

import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/** Completions of one load phase of the benchmark. */
final class LoadRun {
  final ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
  final AtomicLong errors = new AtomicLong();
  final long start = System.nanoTime();
  double seconds;

  void record(long nanos) {
    latencies.add(nanos);
  }

  void finish() {
    seconds = (System.nanoTime() - start) / 1e9;
  }

  double perSecond() {
    return latencies.size() / seconds;
  }

  double percentile(double p) {
    long[] a = latencies.stream().mapToLong(Long::longValue).toArray();
    Arrays.sort(a);
    return a.length == 0 ? 0 : a[Math.min(a.length - 1, (int) (p * a.length))] / 1e6;
  }
}
