/**
 * The benchmark of a process cluster through its admin API ({@code confignode-sim bench}), with a
 * raw Raft baseline through a Raft client of the same processes. Uses {@code cluster}, {@code
 * client}, {@code http}, {@code procedures} (the registry the Raft client reads with) and {@code
 * waits}.
 */
package dev.baton.confignode.bench;
