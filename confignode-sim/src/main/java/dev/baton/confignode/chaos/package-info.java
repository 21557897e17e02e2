/**
 * The seeded chaos run: a fault schedule against a {@code cluster}, a steady workload with periodic
 * reads of random nodes, and at the end the invariant check and the history check of every recorded
 * client operation. Uses {@code cluster}, {@code client}, {@code datanode}, {@code history} and
 * {@code waits}.
 */
package dev.baton.confignode.chaos;
