package dev.baton.procedure;

import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The run-once lifecycle of one {@link ProcedureExecutor}: start (store, recovery, workers, timeout
 * thread), stop, and the fail-stop when the executor cannot go on (a store write failed), which
 * stops it on its own thread and then tells the embedding's listener.
 */
final class ExecutorLifecycle<Env> {
  // logs under the executor's name: one logger setting covers the executor and its lifecycle
  private static final Logger LOG = LoggerFactory.getLogger(ProcedureExecutor.class);

  private enum Phase {
    NEW,
    RUNNING,
    STOPPED
  }

  private final String name;
  private final ExecutorContext<Env> ctx;
  private final WorkerPool workers;
  private final TimeoutExecutorThread timeoutThread;
  private final Consumer<Throwable> failStopListener;
  private final AtomicBoolean failStopNotified = new AtomicBoolean();
  private final Object lock = new Object();
  private volatile Phase phase = Phase.NEW;
  private volatile Throwable failureCause;

  ExecutorLifecycle(
      String name,
      ExecutorContext<Env> ctx,
      WorkerPool workers,
      TimeoutExecutorThread timeoutThread,
      Consumer<Throwable> failStopListener) {
    this.name = name;
    this.ctx = ctx;
    this.workers = workers;
    this.timeoutThread = timeoutThread;
    this.failStopListener = failStopListener;
  }

  /** Recovers from the store, then starts the workers. */
  void start() throws IOException {
    synchronized (lock) {
      if (phase != Phase.NEW) {
        throw new IllegalStateException(name + " was already started; build a new executor");
      }
      ctx.store().start();
      ctx.scheduler().clear();
      ctx.setRunning(true);
      ctx.admission().attach();
      try {
        new ProcedureRecovery<>(ctx, name).recover();
      } catch (IOException | RuntimeException e) {
        ctx.setRunning(false);
        ctx.admission().detach();
        phase = Phase.STOPPED;
        // release the store (a file store's directory lock) so a new executor can start on it
        ctx.store().stop();
        throw e;
      }
      ctx.scheduler().start();
      ctx.timeouts()
          .add(
              ctx.now() + ctx.config().cleanerPeriod().toMillis(),
              TimeoutQueue.Kind.CLEAN_COMPLETED,
              null);
      phase = Phase.RUNNING;
      workers.start();
      timeoutThread.start();
      LOG.info(
          "{} started with {} workers (max {})",
          name,
          ctx.config().coreWorkers(),
          ctx.config().maxWorkers());
    }
  }

  /** Stops at once: workers interrupted, no further step starts, the store is stopped. */
  void stop() {
    synchronized (lock) {
      if (phase == Phase.STOPPED) {
        return;
      }
      boolean wasRunning = phase == Phase.RUNNING;
      phase = Phase.STOPPED;
      ctx.setRunning(false);
      ctx.scheduler().stop();
      if (wasRunning) {
        timeoutThread.shutdown();
        workers.stop();
      }
      ctx.admission().detach();
      ctx.store().stop();
      ctx.failWaiters(new CancellationException(name + " stopped"));
      LOG.info("{} stopped", name);
    }
  }

  boolean isRunning() {
    return phase == Phase.RUNNING;
  }

  boolean isStopped() {
    return phase == Phase.STOPPED;
  }

  /** Why the executor stopped by itself, or null. */
  Throwable failureCause() {
    return failureCause;
  }

  Optional<Throwable> failure() {
    return Optional.ofNullable(failureCause);
  }

  /**
   * @throws IllegalStateException unless started and not stopped
   */
  void ensureRunning() {
    if (phase != Phase.RUNNING) {
      throw new IllegalStateException(name + " is not running (" + phase + ")");
    }
  }

  /** Records the cause and stops on a new thread (the caller may be a worker the stop joins). */
  void failStop(Throwable cause) {
    if (failureCause == null) {
      failureCause = cause;
    }
    LOG.error(
        "{} stops: {}. Procedures resume from the store when an executor starts again.",
        name,
        cause.toString());
    Thread stopper = new Thread(() -> stopAndNotify(cause), name + "-fail-stop");
    stopper.setDaemon(true);
    stopper.start();
  }

  /** On the fail-stop thread: stops, then tells the listener (once the executor fully stopped). */
  private void stopAndNotify(Throwable cause) {
    boolean stoppedBefore = phase == Phase.STOPPED;
    stop();
    if (failStopListener == null || stoppedBefore || !failStopNotified.compareAndSet(false, true)) {
      return;
    }
    try {
      failStopListener.accept(cause);
    } catch (RuntimeException e) {
      LOG.error("{}: the fail-stop listener failed", name, e);
    }
  }
}
