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
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The I/O of launching a leader's executor incarnation, for the {@link LeadershipManager}: appends
 * the {@code Fence} entry that opens a new epoch of a term, and builds the Raft-backed store
 * stamped with term and epoch and an executor on it. It decides nothing: when to fence, build,
 * start or relaunch is the {@link LeaderRoleMachine}'s.
 */
final class ExecutorLauncher<Env> {

  /** A built, not yet started executor and the store it writes through. */
  record Incarnation<Env>(RaftProcedureStore store, ProcedureExecutor<Env> executor) {}

  private final String nodeId;
  private final ProcedureStateMachine stateMachine;
  private final Supplier<LocalSubmitter> submitter;
  private final LeaderExecutorSettings<Env> settings;
  private final BooleanSupplier isLeader;

  /**
   * @param submitter the node's in-process submitter; null before the node started
   * @param isLeader whether Ratis says this node leads (the store fails writes at once otherwise)
   */
  ExecutorLauncher(
      String nodeId,
      ProcedureStateMachine stateMachine,
      Supplier<LocalSubmitter> submitter,
      LeaderExecutorSettings<Env> settings,
      BooleanSupplier isLeader) {
    this.nodeId = nodeId;
    this.stateMachine = stateMachine;
    this.submitter = submitter;
    this.settings = settings;
    this.isLeader = isLeader;
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
    LocalSubmitter raft = submitter.get();
    if (raft == null) {
      throw new NotLeaderException("node " + nodeId + " is not started");
    }
    Duration timeout = settings.requestTimeout();
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
            stateMachine,
            submitter.get(),
            term,
            epoch,
            settings.batchLimits(),
            ConsensusWaits.STORE_WRITE_TIMEOUT,
            isLeader,
            "procedure store of " + nodeId);
    LeaderContext leader = new LeaderContext(nodeId, term, epoch);
    ProcedureExecutor.Builder<Env> b =
        settings.executorBuilder(leader, store).onFailStop(onFailStop);
    return new Incarnation<>(store, b.build());
  }
}
