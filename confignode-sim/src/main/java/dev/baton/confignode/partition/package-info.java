/**
 * Network partitions against a running {@code cluster} on hosts in network namespaces: one {@link
 * dev.baton.confignode.hosts.PartitionKind} put in place around the current leader, with a steady
 * load, the minority's answers, the old leader's step-down and the catch-up after healing measured
 * ({@link dev.baton.confignode.partition.PartitionTrial}). Uses {@code cluster}, {@code client},
 * {@code datanode}, {@code hosts} and {@code waits}.
 */
package dev.baton.confignode.partition;
