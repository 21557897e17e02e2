/**
 * The benchmark of a process cluster through its admin API ({@code confignode-sim bench}). Uses
 * {@code cluster}, {@code client} and {@code http}.
 */
package dev.baton.confignode.bench;
