package dev.baton.confignode.datanode;

import com.fasterxml.jackson.annotation.JsonCreator;

/**
 * The faults currently injected into a DataNode. Faults live in memory only: a restarted DataNode
 * has none.
 *
 * @param failNext how many of the next commands will fail with 503
 * @param latencyMs delay added to every command
 * @param stalled whether commands block until released
 * @param waiting commands blocked by the stall right now
 * @param injectedFailures commands failed by {@code failNext} since start
 * @param stallStep the only step key the stall blocks, or null for every command
 */
public record FaultState(
    int failNext,
    long latencyMs,
    boolean stalled,
    int waiting,
    long injectedFailures,
    String stallStep) {
  @JsonCreator
  public FaultState {}

  /** A state without a stall filter. */
  public FaultState(
      int failNext, long latencyMs, boolean stalled, int waiting, long injectedFailures) {
    this(failNext, latencyMs, stalled, waiting, injectedFailures, null);
  }
}
