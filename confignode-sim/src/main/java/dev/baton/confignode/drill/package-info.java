/**
 * The failover drill: a local cluster, a workload, a leader kill, the checks and the report. Uses
 * {@code cluster}, {@code client}, {@code datanode}, {@code http} and {@code waits}.
 */
package dev.baton.confignode.drill;
