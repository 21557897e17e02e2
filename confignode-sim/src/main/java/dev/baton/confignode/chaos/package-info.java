/**
 * The seeded chaos run: a fault schedule (process faults and, on hosts in network namespaces,
 * partitions) against a {@code cluster}, a steady workload with periodic reads of random nodes, and
 * at the end the invariant check and the history check of every recorded client operation. Uses
 * {@code cluster}, {@code client}, {@code datanode}, {@code history}, {@code hosts}, {@code
 * partition} and {@code waits}.
 */
package dev.baton.confignode.chaos;
