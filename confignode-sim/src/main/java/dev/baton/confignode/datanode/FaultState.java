package dev.baton.confignode.datanode;

/**
 * The faults currently injected into a DataNode. Faults live in memory only: a restarted DataNode
 * has none.
 *
 * @param failNext how many of the next commands will fail with 503
 * @param latencyMs delay added to every command
 * @param stalled whether commands block until released
 * @param waiting commands blocked by the stall right now
 * @param injectedFailures commands failed by {@code failNext} since start
 */
public record FaultState(
    int failNext, long latencyMs, boolean stalled, int waiting, long injectedFailures) {}
