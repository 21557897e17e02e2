/**
 * The seeded chaos run: a fault schedule against a {@code cluster}, a steady workload, and the
 * invariant check at the end. Uses {@code cluster}, {@code client}, {@code datanode}, {@code
 * hosts}, {@code partition} and {@code waits}.
 */
package dev.baton.confignode.chaos;
