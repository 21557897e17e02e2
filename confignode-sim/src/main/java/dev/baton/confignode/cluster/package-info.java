/**
 * A local cluster of ConfigNode and DataNode child processes ({@link
 * dev.baton.confignode.cluster.ProcessCluster}) with the nonce submissions and invariant checks
 * that the drill, chaos, bench and integration tests share, and the {@link
 * dev.baton.confignode.cluster.HistoryRecorder} of client operations for the history checker. Uses
 * {@code client}, {@code datanode}, {@code history}, {@code http} and {@code waits}.
 */
package dev.baton.confignode.cluster;
