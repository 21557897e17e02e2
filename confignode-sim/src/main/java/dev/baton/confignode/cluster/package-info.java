/**
 * A local cluster of ConfigNode and DataNode child processes ({@link
 * dev.baton.confignode.cluster.ProcessCluster}), on loopback or each on a host of its own in a
 * network namespace ({@link dev.baton.confignode.cluster.ClusterHosts}), their JVMs mapping the
 * classes a ConfigNode loads from a shared archive ({@link
 * dev.baton.confignode.cluster.NodeClassArchive}), with the nonce submissions and invariant checks
 * that the drill, chaos, bench and integration tests share, a Raft client of its ConfigNodes, and
 * the {@link dev.baton.confignode.cluster.HistoryRecorder} of client operations for the history
 * checker. Uses {@code auth}, {@code certs}, {@code client}, {@code datanode}, {@code history},
 * {@code hosts}, {@code http} and {@code waits}.
 */
package dev.baton.confignode.cluster;
