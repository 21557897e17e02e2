package dev.baton.consensus;

import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.Fence;
import dev.baton.procedure.ProcedureExecutor;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Makes the executor incarnations of a leader: opens a new epoch of the term through a {@code
 * Fence} entry when an earlier incarnation of the same term existed, then builds the Raft-backed
 * store stamped with term and epoch and an executor on it. Blocking; runs on the leadership thread.
 */
final class ExecutorLauncher<Env> {

  /** A built, not yet started executor and the store it writes through. */
  record Incarnation<Env>(RaftProcedureStore store, ProcedureExecutor<Env> executor) {}

  private final ProcedureNode<Env> node;

  ExecutorLauncher(ProcedureNode<Env> node) {
    this.node = node;
  }

  /**
   * Appends a {@code Fence} of {@code term} and waits until it is applied here; returns the epoch
   * it opened. Every store write of an earlier epoch of the term that lands after it is rejected,
   * and every one that landed before it is in the table an executor loads afterwards.
   *
   * @throws IOException if the fence was not applied within the request timeout, or was refused
   *     (the node no longer leads {@code term})
   */
  long fence(long term) throws IOException {
    LocalSubmitter raft = node.localSubmitter();
    if (raft == null) {
      throw new NotLeaderException("node " + node.nodeId() + " is not started");
    }
    Duration timeout = node.executorSettings().requestTimeout();
    Command command = Command.newBuilder().setFence(Fence.newBuilder().setTerm(term)).build();
    CommandReply reply;
    try {
      reply = raft.submit(command).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while fencing term " + term);
    } catch (TimeoutException e) {
      throw new IOException("executor fence of term " + term + " not applied within " + timeout, e);
    } catch (ExecutionException e) {
      throw new IOException("executor fence of term " + term + " failed: " + e.getCause(), e);
    }
    if (reply.getKindCase() != CommandReply.KindCase.EPOCH) {
      throw new NotLeaderException(
          "executor fence of term " + term + " refused: " + reply.getRejected());
    }
    return reply.getEpoch();
  }

  /**
   * Builds the store and the executor of one incarnation; {@code onFailStop} hears if the executor
   * stops by itself.
   *
   * @throws RuntimeException if the application's environment or executor settings fail
   */
  Incarnation<Env> build(long term, long epoch, Consumer<Throwable> onFailStop) {
    RaftProcedureStore store =
        new RaftProcedureStore(
            node.stateMachine(),
            node.localSubmitter(),
            term,
            epoch,
            node.executorSettings().batchLimits(),
            RaftProcedureStore.DEFAULT_WRITE_TIMEOUT,
            node::isLeader,
            "procedure store of " + node.nodeId());
    LeaderContext leader = new LeaderContext(node.nodeId(), term);
    ProcedureExecutor.Builder<Env> b =
        node.executorSettings().executorBuilder(leader, store).onFailStop(onFailStop);
    return new Incarnation<>(store, b.build());
  }
}
