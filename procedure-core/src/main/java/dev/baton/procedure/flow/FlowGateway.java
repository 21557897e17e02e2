package dev.baton.procedure.flow;

import dev.baton.procedure.NonceKey;
import dev.baton.procedure.Procedure;
import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureInfo;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * How {@link Flows} reaches the procedures: a local executor, or a cluster node that forwards to
 * its leader. Failures to reach the procedures are unchecked (e.g. {@link IllegalStateException}
 * without a running executor).
 *
 * @param <Env> the environment of the procedures
 */
public interface FlowGateway<Env> {
  /** Submits a root procedure; the same nonce returns the same id. */
  long submit(Procedure<Env> proc, NonceKey nonce);

  Optional<ProcedureInfo> getInfo(long procId);

  List<ProcedureInfo> list();

  /** Waits until the procedure finished. */
  ProcedureInfo await(long procId, Duration timeout) throws TimeoutException, InterruptedException;

  /** A gateway to whatever executor {@code current} returns at each call. */
  static <Env> FlowGateway<Env> of(Supplier<Optional<ProcedureExecutor<Env>>> current) {
    return new FlowGateway<>() {
      private ProcedureExecutor<Env> executor() {
        return current
            .get()
            .orElseThrow(() -> new IllegalStateException("no running executor for flows"));
      }

      @Override
      public long submit(Procedure<Env> proc, NonceKey nonce) {
        return executor().submit(proc, nonce);
      }

      @Override
      public Optional<ProcedureInfo> getInfo(long procId) {
        return executor().getInfo(procId);
      }

      @Override
      public List<ProcedureInfo> list() {
        return executor().list();
      }

      @Override
      public ProcedureInfo await(long procId, Duration timeout)
          throws TimeoutException, InterruptedException {
        return executor().await(procId, timeout);
      }
    };
  }
}
