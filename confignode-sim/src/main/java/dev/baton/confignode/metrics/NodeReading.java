package dev.baton.confignode.metrics;

import dev.baton.consensus.LeadershipManager;
import dev.baton.consensus.NodeRole;
import dev.baton.consensus.ProcedureNode;
import dev.baton.procedure.ExecutorCensus;
import dev.baton.procedure.ProcedureExecutor;
import java.util.Optional;

/**
 * The figures of a node's gauges, read once per scrape so that every gauge of one scrape describes
 * the same moment (and the executor's live procedures are counted once, not once per gauge).
 *
 * @param role the node's role now
 * @param executor the running executor's figures; empty unless this node leads with a running
 *     executor
 * @param lastRecovery the last executor recovery of this node, if it ever led
 */
record NodeReading(
    NodeRole role,
    Optional<ExecutorFigures> executor,
    Optional<LeadershipManager.Recovery> lastRecovery) {

  /** A running executor's figures. */
  record ExecutorFigures(int workers, int runningSteps, int queued, ExecutorCensus census) {}

  /** Nothing read yet: a follower without a recovery. */
  static final NodeReading NONE =
      new NodeReading(NodeRole.FOLLOWER, Optional.empty(), Optional.empty());

  static NodeReading of(ProcedureNode<?> node) {
    Optional<? extends ProcedureExecutor<?>> e = node.executor();
    return new NodeReading(
        node.role(),
        e.map(
            x ->
                new ExecutorFigures(
                    x.workerCount(), x.runningCount(), x.queuedCount(), x.census())),
        node.lastRecovery());
  }
}
