package dev.baton.procedure;

import java.util.Map;

/**
 * A count of an executor's live procedures at one moment, for gauges: how many are in each state,
 * how many wait and why, and when the oldest live one of each type was submitted.
 *
 * @param byState live procedures per state; every non-terminal state and {@code FAILED} (rolling
 *     back) is present, with 0 if none
 * @param blocked live procedures that wait, per {@link WaitCategory}; every category is present
 * @param oldestSubmittedMillis per type with live procedures, the earliest submission time (epoch
 *     milliseconds) among them
 * @param takenAtMillis when the census was taken, on the executor's clock
 */
public record ExecutorCensus(
    Map<ProcedureState, Integer> byState,
    Map<WaitCategory, Integer> blocked,
    Map<String, Long> oldestSubmittedMillis,
    long takenAtMillis) {
  public ExecutorCensus {
    byState = Map.copyOf(byState);
    blocked = Map.copyOf(blocked);
    oldestSubmittedMillis = Map.copyOf(oldestSubmittedMillis);
  }
}
