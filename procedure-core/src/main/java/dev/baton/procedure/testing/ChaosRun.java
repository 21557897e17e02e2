package dev.baton.procedure.testing;

import dev.baton.procedure.Procedure;
import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureRegistry;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

/**
 * One chaos run of {@link ProcedureTestKit}: submits a procedure, then crashes the executor at
 * every store write, alternating "before the persist" and "after the persist", restarting a new
 * executor on the same store each time, until the procedure is finished.
 */
final class ChaosRun<Env> {
  private final ProcedureRegistry registry;
  private final Env env;
  private final CrashInjectingStore store;
  private int restarts;

  ChaosRun(ProcedureRegistry registry, Env env, CrashInjectingStore store) {
    this.registry = registry;
    this.env = env;
    this.store = store;
  }

  int restarts() {
    return restarts;
  }

  ProcedureInfo runToEnd(Procedure<Env> proc) {
    CrashInjectingStore.Mode next = CrashInjectingStore.Mode.BEFORE_PERSIST;
    long procId = -1;
    long deadline = System.nanoTime() + ProcedureTestKit.DEFAULT_RUN_TIMEOUT.toNanos();
    while (true) {
      ProcedureExecutor<Env> executor = ProcedureTestKit.newExecutor(registry, env, store);
      try {
        // Armed before the executor starts, so the crash hits its first write: the recovery's (the
        // due state it counts as run), if it writes, else the workers' first; the submission's
        // own write is let through.
        store.arm(next, procId < 0 ? 1 : 0);
        if (startedWithoutCrash(executor)) {
          if (procId < 0) {
            procId = executor.submit(proc);
          }
          Optional<ProcedureInfo> now = executor.getInfo(procId);
          if (now.isPresent() && now.get().finished()) {
            return now.get();
          }
          ProcedureInfo done = awaitOrCrash(executor, procId, deadline);
          if (done != null) {
            return done;
          }
        }
      } catch (java.io.IOException e) {
        throw new AssertionError("executor restart failed: " + e, e);
      } finally {
        executor.stop();
      }
      restarts++;
      if (restarts > ProcedureTestKit.MAX_CRASHES) {
        throw new AssertionError(
            "procedure " + procId + " did not finish within " + restarts + " restarts");
      }
      next =
          next == CrashInjectingStore.Mode.BEFORE_PERSIST
              ? CrashInjectingStore.Mode.AFTER_PERSIST
              : CrashInjectingStore.Mode.BEFORE_PERSIST;
    }
  }

  /** Starts the executor; false if the simulated crash hit the recovery's own write. */
  private static boolean startedWithoutCrash(ProcedureExecutor<?> executor)
      throws java.io.IOException {
    try {
      executor.start();
      return true;
    } catch (CrashInjectingStore.SimulatedCrashException crashedInRecovery) {
      return false;
    }
  }

  /** The finished info, or null if the executor stopped on the simulated crash. */
  private ProcedureInfo awaitOrCrash(ProcedureExecutor<Env> executor, long procId, long deadline) {
    long left = deadline - System.nanoTime();
    if (left <= 0) {
      throw new AssertionError("chaos run of procedure " + procId + " timed out");
    }
    try {
      return executor.await(procId, java.time.Duration.ofNanos(left));
    } catch (IllegalStateException stopped) {
      return null; // the executor stopped itself on the simulated crash
    } catch (TimeoutException e) {
      throw new AssertionError("chaos run of procedure " + procId + " timed out", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
