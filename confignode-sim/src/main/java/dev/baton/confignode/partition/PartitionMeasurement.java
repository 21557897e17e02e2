package dev.baton.confignode.partition;

import dev.baton.confignode.hosts.PartitionKind;
import java.util.List;
import java.util.Locale;

/**
 * What one partition trial measured; times in ms after the cut ({@link #NONE} when it did not
 * happen: no new term, no step-down).
 *
 * @param kind the partition
 * @param cuts what it cut
 * @param oldLeader the leader when it started
 * @param oldTerm its term
 * @param newLeader the leader once healed and caught up
 * @param newTerm its term
 * @param newLeaderElectedMs a node first reported a leader of a newer term
 * @param newExecutorRunningMs the new leader's executor ran, rebuilt from the replicated state
 * @param firstStepMs a DataNode first accepted a command of a newer term
 * @param steppedDownMs the old leader was first seen no longer leader
 * @param executorStoppedMs the old leader's executor was first seen stopped
 * @param partitionMs how long the partition lasted
 * @param ackedDuring submissions acknowledged while it lasted
 * @param caughtUpMs after the heal began: every ConfigNode had applied what any had applied then
 * @param flaps cuts again after a heal (flapping only)
 * @param minorityAnswers the minority's answers to requests sent to it directly
 */
public record PartitionMeasurement(
    PartitionKind kind,
    String cuts,
    String oldLeader,
    long oldTerm,
    String newLeader,
    long newTerm,
    long newLeaderElectedMs,
    long newExecutorRunningMs,
    long firstStepMs,
    long steppedDownMs,
    long executorStoppedMs,
    long partitionMs,
    int ackedDuring,
    long caughtUpMs,
    int flaps,
    List<MinorityAnswer> minorityAnswers) {
  /** What a time is when the event did not happen. */
  public static final long NONE = -1;

  public PartitionMeasurement {
    minorityAnswers = List.copyOf(minorityAnswers);
  }

  /** The header of {@link #row}. */
  public static String header() {
    return String.format(
        Locale.ROOT,
        "%-22s %8s %8s %9s %9s %9s %9s %6s %9s %s",
        "partition",
        "elected",
        "running",
        "1st step",
        "stepdown",
        "exec stop",
        "lasted",
        "acked",
        "caught up",
        "leader (term)");
  }

  /** One line of a table: the times in ms after the cut, "-" for none. */
  public String row() {
    return String.format(
        Locale.ROOT,
        "%-22s %8s %8s %9s %9s %9s %9d %6d %9d %s (%d) -> %s (%d)",
        kind.flagValue(),
        ms(newLeaderElectedMs),
        ms(newExecutorRunningMs),
        ms(firstStepMs),
        ms(steppedDownMs),
        ms(executorStoppedMs),
        partitionMs,
        ackedDuring,
        caughtUpMs,
        oldLeader,
        oldTerm,
        newLeader,
        newTerm);
  }

  private static String ms(long v) {
    return v == NONE ? "-" : Long.toString(v);
  }
}
