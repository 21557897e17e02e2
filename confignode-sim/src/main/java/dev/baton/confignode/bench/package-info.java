/**
 * The benchmark of a process cluster through its admin API ({@code confignode-sim bench}). Uses
 * {@code cluster}, {@code client}, {@code http} and {@code waits}.
 */
package dev.baton.confignode.bench;
