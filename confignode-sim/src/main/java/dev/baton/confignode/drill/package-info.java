/**
 * The failover drill: a local cluster, a workload, a leader kill, the checks (the invariants and
 * the history of the workload's client operations) and the report. Uses {@code cluster}, {@code
 * client}, {@code datanode}, {@code history}, {@code http} and {@code waits}.
 */
package dev.baton.confignode.drill;
