package dev.baton.consensus.bench;

/**
 * When each step of the traced {@link BenchProcedures.Noop3} procedures started ({@code
 * System.nanoTime()}), for ids from {@code base} on, in one array allocated up front: the benchmark
 * must not add garbage of its own to the GC it measures. Ids past the capacity are not traced.
 * Written by the executor's workers, read once a procedure finished (its completion orders the
 * writes before the read).
 */
final class StepTrace {
  static final int STATES = BenchProcedures.Three.values().length;

  private final long base;
  private final int capacity;
  private final long[] starts;

  StepTrace(long base, int capacity) {
    this.base = base;
    this.capacity = capacity;
    this.starts = new long[Math.multiplyExact(capacity, STATES)];
  }

  void record(long procId, int state, long nanos) {
    long i = procId - base;
    if (i >= 0 && i < capacity) {
      starts[(int) i * STATES + state] = nanos;
    }
  }

  /** When step {@code state} of {@code procId} started, or 0 if unknown. */
  long start(long procId, int state) {
    long i = procId - base;
    return i >= 0 && i < capacity ? starts[(int) i * STATES + state] : 0;
  }
}
