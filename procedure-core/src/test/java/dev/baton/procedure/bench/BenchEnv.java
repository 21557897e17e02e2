package dev.baton.procedure.bench;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.LongAdder;

/**
 * The world the benchmark procedures act on: counters of steps run and procedures finished, and the
 * window that bounds how many procedures are in flight at once.
 */
final class BenchEnv {
  /** Steps whose {@code executeFromState} ran. */
  final LongAdder steps = new LongAdder();

  /** Procedures that reached their terminal state (counted after their last store write). */
  final LongAdder finished = new LongAdder();

  /** Procedures that ran their parking step. */
  final LongAdder parked = new LongAdder();

  /** Permits for procedures in flight; submitters take one, a finished procedure returns it. */
  final Semaphore window;

  BenchEnv(int inFlight) {
    this.window = new Semaphore(inFlight);
  }

  void stepRan() {
    steps.increment();
  }

  void procedureFinished() {
    finished.increment();
    window.release();
  }
}
