/**
 * The failover drill: a local cluster, a workload, a leader kill (or a partition cutting the leader
 * off), the checks (the invariants and the history of the workload's client operations) and the
 * report. Uses {@code cluster}, {@code client}, {@code datanode}, {@code history}, {@code hosts},
 * {@code partition}, {@code http} and {@code waits}.
 */
package dev.baton.confignode.drill;
