/**
 * A local cluster of ConfigNode and DataNode child processes ({@link
 * dev.baton.confignode.cluster.ProcessCluster}) with the nonce submissions and invariant checks
 * that the drill, chaos, bench and integration tests share. Uses {@code client}, {@code datanode},
 * {@code certs}, {@code auth}, {@code http} and {@code waits}.
 */
package dev.baton.confignode.cluster;
