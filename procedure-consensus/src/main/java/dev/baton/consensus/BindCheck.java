package dev.baton.consensus;

import dev.baton.consensus.tls.PeerIdentity;
import dev.baton.consensus.tls.TlsSettings;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;

/**
 * What a node checks before it is built about where it listens and how it is secured: a node
 * without TLS listens on a loopback address only, unless insecure exposure was allowed; a node with
 * TLS holds a certificate, valid now, that names it as a member.
 */
final class BindCheck {
  private BindCheck() {}

  /**
   * @throws IllegalArgumentException saying what is wrong and what to do
   */
  static void check(String nodeId, String bindHost, TlsSettings tls, boolean allowInsecure) {
    InetAddress address;
    try {
      address = InetAddress.getByName(bindHost);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException(
          "node " + nodeId + " cannot listen on " + bindHost + ": unknown host", e);
    }
    if (tls == null) {
      if (!address.isLoopbackAddress() && !allowInsecure) {
        throw new IllegalArgumentException(
            "node "
                + nodeId
                + " would listen on "
                + bindHost
                + ", which is not a loopback address, without TLS: anyone who reaches it could"
                + " vote, append to the log and submit. Give the node TLS settings (tls), bind a"
                + " loopback address, or allow it explicitly (allowInsecure(true)).");
      }
      return;
    }
    PeerIdentity identity;
    try {
      identity = tls.identity();
    } catch (CertificateException e) {
      throw new IllegalArgumentException(
          "node " + nodeId + ": " + e.getMessage() + " (" + tls.source() + ")", e);
    }
    if (!identity.isMember(nodeId)) {
      throw new IllegalArgumentException(
          "node "
              + nodeId
              + " needs a certificate naming member "
              + nodeId
              + " ("
              + PeerIdentity.member(nodeId).uri()
              + "); "
              + tls.source()
              + " names "
              + identity);
    }
    try {
      tls.certificate().checkValidity();
    } catch (CertificateExpiredException | CertificateNotYetValidException e) {
      throw new IllegalArgumentException(
          "node "
              + nodeId
              + ": its certificate is not valid now ("
              + e.getMessage()
              + "); issue a new one ("
              + tls.source()
              + ")",
          e);
    }
  }

  /** Whether {@code host} is a loopback address (false if it does not resolve). */
  static boolean isLoopback(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }
}
