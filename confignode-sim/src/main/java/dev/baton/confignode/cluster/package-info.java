/**
 * A local cluster of ConfigNode and DataNode child processes ({@link
 * dev.baton.confignode.cluster.ProcessCluster}) with the nonce submissions and invariant checks
 * that the drill, chaos, bench and integration tests share, and a Raft client of its ConfigNodes.
 * Uses {@code client}, {@code datanode}, {@code http}, {@code certs}, {@code auth} and {@code
 * waits}.
 */
package dev.baton.confignode.cluster;
