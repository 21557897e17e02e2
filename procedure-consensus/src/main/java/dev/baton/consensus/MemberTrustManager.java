package dev.baton.consensus;

import dev.baton.consensus.tls.PeerIdentity;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Trust for the Raft connections of a cluster: a certificate must chain to the cluster's CA (the
 * JDK's PKIX checks, with TLS' hostname verification on the client side), and the server a
 * connection reaches must be the member that lives at the address it dialled: a member's address
 * maps to its peer id, and the server's certificate must name that peer id. So a member started
 * under another member's certificate is refused by everyone who calls it, as callers' certificates
 * are checked by {@link AccessInterceptor} on the server side. Who lives where is the {@link
 * MembershipView}'s: a member added to the group is trusted at its address from then on.
 */
final class MemberTrustManager extends X509ExtendedTrustManager {
  private final X509ExtendedTrustManager pkix;
  private final MembershipView members;

  private MemberTrustManager(X509ExtendedTrustManager pkix, MembershipView members) {
    this.pkix = pkix;
    this.members = members;
  }

  /**
   * @param ca the certificates to trust
   * @param peers every member's address, by peer id
   */
  static MemberTrustManager of(List<X509Certificate> ca, Map<String, InetSocketAddress> peers) {
    return of(ca, MembershipView.fixed(peers));
  }

  /**
   * @param ca the certificates to trust
   * @param members who the members are and where they live, as it changes
   */
  static MemberTrustManager of(List<X509Certificate> ca, MembershipView members) {
    return new MemberTrustManager(pkix(ca), members);
  }

  private static X509ExtendedTrustManager pkix(List<X509Certificate> ca) {
    try {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      for (int i = 0; i < ca.size(); i++) {
        store.setCertificateEntry("ca-" + i, ca.get(i));
      }
      TrustManagerFactory f =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      f.init(store);
      for (TrustManager t : f.getTrustManagers()) {
        if (t instanceof X509ExtendedTrustManager x) {
          return x;
        }
      }
      throw new IllegalStateException("this JVM's trust managers are not X509ExtendedTrustManager");
    } catch (GeneralSecurityException | java.io.IOException e) {
      throw new IllegalArgumentException("cannot trust the CA certificates " + ca, e);
    }
  }

  /** Checks that {@code chain}'s certificate names the member at {@code host:port}. */
  private void requireMemberAt(X509Certificate[] chain, String host, int port)
      throws CertificateException {
    String expected = members.memberAt(String.valueOf(host), port).orElse(null);
    if (expected == null) {
      throw new CertificateException(
          host + ":" + port + " is no member's address; members: " + members.known());
    }
    PeerIdentity identity = PeerIdentity.of(chain[0]);
    if (!identity.isMember(expected)) {
      throw new CertificateException(
          "the server at "
              + host
              + ":"
              + port
              + " (member "
              + expected
              + ") presented the certificate of "
              + identity);
    }
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    pkix.checkServerTrusted(chain, authType, engine);
    requireMemberAt(chain, engine.getPeerHost(), engine.getPeerPort());
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    pkix.checkServerTrusted(chain, authType, socket);
    InetSocketAddress remote = (InetSocketAddress) socket.getRemoteSocketAddress();
    requireMemberAt(chain, remote.getHostString(), remote.getPort());
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    throw new CertificateException(
        "a member's certificate is checked against the address dialled, which is unknown here");
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    pkix.checkClientTrusted(chain, authType, engine);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    pkix.checkClientTrusted(chain, authType, socket);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    pkix.checkClientTrusted(chain, authType);
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return pkix.getAcceptedIssuers();
  }
}
