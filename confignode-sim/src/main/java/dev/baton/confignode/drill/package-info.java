/**
 * The failover drill: a local cluster, a workload, a leader kill (or a partition cutting the leader
 * off), ConfigNode membership changes under the workload (the killed leader replaced, a follower
 * removed and a fresh node added), the checks (the invariants and the history of the workload's
 * client operations) and the report. Uses {@code cluster}, {@code client}, {@code datanode}, {@code
 * history}, {@code hosts}, {@code partition}, {@code http} and {@code waits}.
 */
package dev.baton.confignode.drill;
