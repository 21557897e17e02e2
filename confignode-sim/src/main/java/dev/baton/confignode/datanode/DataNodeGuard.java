package dev.baton.confignode.datanode;

import dev.baton.confignode.http.AllowedHosts;
import dev.baton.consensus.tls.TlsSettings;
import java.util.Objects;
import java.util.Optional;

/**
 * Who may reach a DataNode and what they may do there.
 *
 * <p>With {@code tls} the DataNode serves HTTPS only, with the certificate of these settings, and
 * every client must present a certificate of the CA they trust (mutual TLS; a client without one,
 * or with one of another CA, fails the handshake). What the certificate names ({@link
 * dev.baton.consensus.tls.PeerIdentity}) decides what its holder may do:
 *
 * <ul>
 *   <li>commands (every route that carries a term, ping included): a ConfigNode, i.e. a member
 *       identity; its node id is recorded with each applied command ({@link LedgerEntry#caller()});
 *   <li>{@code GET /state}: any identity of the CA (member, DataNode, client of any role), so tools
 *       and checks read with a reader's certificate;
 *   <li>the fault routes (with {@code faults} only): a client with the admin role, as the
 *       ConfigNode's own fault routes need the admin role; a ConfigNode never calls them.
 * </ul>
 *
 * Anything else is answered 403 {@value DataNodeErrors#FORBIDDEN} before the request is read, and
 * changes nothing. Without {@code tls} the DataNode serves plain HTTP to anyone who reaches it,
 * which only a loopback bind (or {@code allowInsecure}) permits.
 *
 * @param tls this DataNode's certificate, key and the CA its callers' certificates must come from;
 *     empty: plain HTTP
 * @param allowInsecure whether a bind address other than loopback may serve without TLS (a WARN at
 *     start); without it such a DataNode refuses to start
 * @param faults whether the fault routes ({@code /faults...}) exist; for drills and tests only
 */
public record DataNodeGuard(Optional<TlsSettings> tls, boolean allowInsecure, boolean faults) {
  /** Plain HTTP on loopback, no fault routes. */
  public static final DataNodeGuard PLAIN = new DataNodeGuard(Optional.empty(), false, false);

  public DataNodeGuard {
    Objects.requireNonNull(tls, "tls");
  }

  /** Mutual TLS with {@code settings}, no fault routes. */
  public static DataNodeGuard mutualTls(TlsSettings settings) {
    return new DataNodeGuard(Optional.of(settings), false, false);
  }

  /** With the fault routes, or without. */
  public DataNodeGuard withFaults(boolean on) {
    return new DataNodeGuard(tls, allowInsecure, on);
  }

  /** Allowing a non-loopback bind without TLS, or not. */
  public DataNodeGuard withAllowInsecure(boolean allow) {
    return new DataNodeGuard(tls, allow, faults);
  }

  /**
   * Whether listening on {@code bindHost} exposes plain HTTP beyond this host: no TLS and an
   * address other than loopback (every interface included).
   */
  boolean exposesPlainHttp(String bindHost) {
    return tls.isEmpty() && !AllowedHosts.isLoopback(bindHost);
  }

  /**
   * Checks that a DataNode {@code id} may listen on {@code bindHost} with these settings.
   *
   * @throws IllegalArgumentException for plain HTTP beyond loopback without {@code allowInsecure},
   *     saying what to give
   */
  public void checkBind(int id, String bindHost) {
    if (exposesPlainHttp(bindHost) && !allowInsecure) {
      throw new IllegalArgumentException(
          "DataNode "
              + id
              + " would serve plain HTTP on "
              + bindHost
              + ", where any host could fence its ConfigNodes: give it --tls-cert, --tls-key and"
              + " --tls-ca, or --insecure to accept that");
    }
  }
}
