package dev.baton.confignode.chaos;

import java.util.Locale;

/**
 * One fault of a chaos schedule: at {@code atMillis} after the start, {@code action} hits a target
 * for {@code durationMillis}, after which it is healed (a killed node restarts, a paused one
 * resumes, a failing DataNode is reset).
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
    KILL_ALL_NODES;

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
      return this == KILL_LEADER || this == PAUSE_LEADER || this == KILL_ALL_NODES;
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
        };
    return String.format(
        Locale.ROOT, "%6d ms %-14s %s for %d ms", atMillis, action, what, durationMillis);
  }
}
