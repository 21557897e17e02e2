package dev.baton.confignode.node;

import dev.baton.confignode.procedures.ConfigNodeEnv;
import dev.baton.confignode.waits.ConfigNodeWaits;
import dev.baton.consensus.ProcedureNode;
import dev.baton.procedure.NonceKey;
import dev.baton.procedure.Procedure;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.flow.FlowGateway;
import dev.baton.procedure.util.Poll;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Flows through a cluster node: submissions and reads go to the leader (any node accepts them), so
 * the flow HTTP routes work on every node.
 */
final class NodeFlowGateway implements FlowGateway<ConfigNodeEnv> {
  private final ProcedureNode<ConfigNodeEnv> node;
  private final Duration callTimeout;

  NodeFlowGateway(ProcedureNode<ConfigNodeEnv> node, Duration callTimeout) {
    this.node = node;
    this.callTimeout = callTimeout;
  }

  @Override
  public long submit(Procedure<ConfigNodeEnv> proc, NonceKey nonce) {
    return get(node.submit(proc, nonce), "submission of " + proc);
  }

  @Override
  public Optional<ProcedureInfo> getInfo(long procId) {
    return get(node.getInfo(procId), "read of procedure " + procId);
  }

  @Override
  public List<ProcedureInfo> list() {
    return get(node.list(), "list of procedures");
  }

  @Override
  public ProcedureInfo await(long procId, Duration timeout)
      throws TimeoutException, InterruptedException {
    return Poll.every(ConfigNodeWaits.FLOW_AWAIT_POLL)
        .within(timeout)
        .onTimeout(
            expiry ->
                new TimeoutException("procedure " + procId + " did not finish within " + timeout))
        .until(() -> getInfo(procId).filter(ProcedureInfo::finished).orElse(null));
  }

  private <T> T get(CompletableFuture<T> f, String what) {
    try {
      return f.get(callTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(what + " was interrupted", e);
    } catch (TimeoutException e) {
      throw new IllegalStateException(what + ": no answer within " + callTimeout, e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IllegalArgumentException bad) {
        throw bad;
      }
      throw new IllegalStateException(what + " failed: " + cause, cause);
    }
  }
}
