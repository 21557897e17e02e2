package dev.baton.confignode.node;

import dev.baton.consensus.ProcedureNode;
import dev.baton.consensus.tls.TlsSettings;
import java.util.Optional;

/**
 * How a ConfigNode's Raft peer is reached and secured.
 *
 * @param clusterId the cluster's name; the Raft group id derives from it, so members of two
 *     clusters never join each other
 * @param bindHost the address the Raft port listens on, if not the host of the node's own peer
 *     address
 * @param tls mutual TLS between members and clients, with the certificate naming this node
 * @param allowInsecure whether a non-loopback bind may run without TLS (logged as a WARN)
 * @param join whether the node joins a running cluster as a new member: it starts with an empty
 *     Raft group and waits for an {@code AddConfigNode} to bring it in
 */
public record RaftAccess(
    String clusterId,
    Optional<String> bindHost,
    Optional<TlsSettings> tls,
    boolean allowInsecure,
    boolean join) {
  /** Today's default: the default cluster id, the peer's own host, no TLS (loopback only). */
  public static final RaftAccess LOOPBACK =
      new RaftAccess(ProcedureNode.DEFAULT_CLUSTER_ID, Optional.empty(), Optional.empty(), false);

  /** A member of the cluster from its start (not joining). */
  public RaftAccess(
      String clusterId,
      Optional<String> bindHost,
      Optional<TlsSettings> tls,
      boolean allowInsecure) {
    this(clusterId, bindHost, tls, allowInsecure, false);
  }

  /** Applies these settings to {@code builder}. */
  <E> ProcedureNode.Builder<E> applyTo(ProcedureNode.Builder<E> builder) {
    builder.clusterId(clusterId).allowInsecure(allowInsecure).join(join);
    bindHost.ifPresent(builder::bindAddress);
    tls.ifPresent(builder::tls);
    return builder;
  }
}
