package dev.baton.procedure.bench;

import java.util.concurrent.CountDownLatch;
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

  /**
   * Whether a {@link ParkedProcedure}'s parking step first waits on {@link #hold}, which never
   * opens: with every worker held, the other procedures stay stored as submitted, their first state
   * due.
   */
  final boolean holdParking;

  private final CountDownLatch hold = new CountDownLatch(1);

  BenchEnv(int inFlight) {
    this(inFlight, false);
  }

  BenchEnv(int inFlight, boolean holdParking) {
    this.window = new Semaphore(inFlight);
    this.holdParking = holdParking;
  }

  /** Waits until the executor stops (interrupts the step), if parking is held. */
  void awaitParkingAllowed() throws InterruptedException {
    if (holdParking) {
      hold.await();
    }
  }

  void stepRan() {
    steps.increment();
  }

  void procedureFinished() {
    finished.increment();
    window.release();
  }
}
