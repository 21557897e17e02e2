package dev.baton.confignode.chaos;

import java.util.Locale;

/**
 * One fault of a chaos schedule: at {@code atMillis} after the start, {@code action} hits a target
 * for {@code durationMillis}, after which it is healed (a killed node restarts, a paused one
 * resumes, a failing DataNode is reset).
 *
 * @param target a ConfigNode index (0-based) for node faults, a DataNode id for {@link
 *     Action#FAIL_DATANODE}; ignored when the action aims at the leader
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
    FAIL_DATANODE;

    /** Whether it takes a ConfigNode out of the majority while it lasts. */
    public boolean hitsConfigNode() {
      return this != FAIL_DATANODE;
    }
  }

  public long healAtMillis() {
    return atMillis + durationMillis;
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "%6d ms %-13s %s for %d ms",
        atMillis,
        action,
        action == Action.KILL_LEADER || action == Action.PAUSE_LEADER
            ? "leader"
            : (action == Action.FAIL_DATANODE ? "DataNode " : "node #") + target,
        durationMillis);
  }
}
