package dev.baton.confignode.chaos;

import dev.baton.confignode.hosts.PartitionKind;
import java.util.Locale;
import java.util.Optional;

/**
 * One fault of a chaos schedule: at {@code atMillis} after the start, {@code action} hits a target
 * for {@code durationMillis}, after which it is healed (a killed node restarts, a paused one
 * resumes, a failing DataNode is reset, a network partition is healed).
 *
 * @param target a ConfigNode index (0-based) for single-node faults, a DataNode id for DataNode
 *     faults; ignored when the action aims at the leader or at every ConfigNode
 */
public record FaultEvent(long atMillis, Action action, int target, long durationMillis) {
  /** What a fault does. */
  public enum Action {
    /** SIGKILL the current leader, restart it later. */
    KILL_LEADER,
    /** SIGKILL a ConfigNode, restart it later. */
    KILL_NODE,
    /** SIGSTOP the current leader, SIGCONT it later. */
    PAUSE_LEADER,
    /** SIGSTOP a ConfigNode, SIGCONT it later. */
    PAUSE_NODE,
    /** The DataNode fails its next commands with 503 until reset. */
    FAIL_DATANODE,
    /** SIGKILL a DataNode, restart it later on its data dir. */
    KILL_DATANODE,
    /**
     * SIGKILL every ConfigNode, restart them all later: the majority is lost for the fault's
     * duration (bounded by the schedule's maximum majority loss) plus the restart.
     */
    KILL_ALL_NODES,
    /** A follower cut from every other host ({@link PartitionKind#ISOLATE_NODE}). */
    PARTITION_ISOLATE_NODE(PartitionKind.ISOLATE_NODE),
    /** The leader cut from the other ConfigNodes ({@link PartitionKind#ISOLATE_LEADER}). */
    PARTITION_ISOLATE_LEADER(PartitionKind.ISOLATE_LEADER),
    /** 2 | 3 with the leader in the 2 ({@link PartitionKind#SPLIT_LEADER_MINORITY}). */
    PARTITION_SPLIT_LEADER_MINORITY(PartitionKind.SPLIT_LEADER_MINORITY),
    /** The leader and a follower cut, a third reaching both ({@link PartitionKind#BRIDGE}). */
    PARTITION_BRIDGE(PartitionKind.BRIDGE),
    /** What the leader sends is dropped ({@link PartitionKind#ONE_WAY}). */
    PARTITION_ONE_WAY(PartitionKind.ONE_WAY),
    /** The leader cut and healed in turn ({@link PartitionKind#FLAPPING}). */
    PARTITION_FLAPPING(PartitionKind.FLAPPING),
    /** A DataNode cut from the leader ({@link PartitionKind#DATANODE_FROM_LEADER}). */
    PARTITION_DATANODE_FROM_LEADER(PartitionKind.DATANODE_FROM_LEADER);

    private final PartitionKind partition;

    Action() {
      this(null);
    }

    Action(PartitionKind partition) {
      this.partition = partition;
    }

    /** The network partition it puts in place, if it is one (a run with network faults only). */
    public Optional<PartitionKind> partition() {
      return Optional.ofNullable(partition);
    }

    /** Whether it takes ConfigNodes out of the majority while it lasts. */
    public boolean hitsConfigNode() {
      return !hitsDataNode();
    }

    /** Whether it aims at a DataNode. */
    public boolean hitsDataNode() {
      return this == FAIL_DATANODE || this == KILL_DATANODE;
    }

    /** Whether it aims at a node chosen when it runs (the leader) or at every ConfigNode. */
    boolean hitsAnyConfigNode() {
      return this == KILL_LEADER
          || this == PAUSE_LEADER
          || this == KILL_ALL_NODES
          || partition != null;
    }
  }

  public long healAtMillis() {
    return atMillis + durationMillis;
  }

  @Override
  public String toString() {
    String what =
        switch (action) {
          case KILL_LEADER, PAUSE_LEADER -> "leader";
          case KILL_ALL_NODES -> "every ConfigNode";
          case FAIL_DATANODE, KILL_DATANODE -> "DataNode " + target;
          case KILL_NODE, PAUSE_NODE -> "node #" + target;
          default -> "network (" + action.partition().orElseThrow().description() + ")";
        };
    return String.format(
        Locale.ROOT, "%6d ms %-14s %s for %d ms", atMillis, action, what, durationMillis);
  }
}
