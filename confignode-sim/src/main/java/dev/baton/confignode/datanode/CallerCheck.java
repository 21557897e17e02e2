package dev.baton.confignode.datanode;

import dev.baton.confignode.http.HttpCall;
import dev.baton.confignode.http.HttpError;
import dev.baton.consensus.tls.ClientRole;
import dev.baton.consensus.tls.PeerIdentity;
import java.net.HttpURLConnection;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who called a DataNode route and whether they may: the rules of {@link DataNodeGuard}, applied to
 * the certificate a request came with. Over plain HTTP everyone may do everything and nobody is
 * named. A refusal is logged at WARN with the caller and its address.
 */
final class CallerCheck {
  /** What a route needs of its caller. */
  enum Need {
    /** A ConfigNode (member) identity: commands, every route that carries a term. */
    CONFIGNODE,
    /** Any identity of the CA: reads. */
    ANY_IDENTITY,
    /** A client with the admin role: fault control. */
    ADMIN
  }

  private static final Logger LOG = LoggerFactory.getLogger(CallerCheck.class);

  private final int dataNodeId;
  private final boolean tls;

  /**
   * @param tls whether the DataNode serves mutual TLS (every call then carries a checked
   *     certificate)
   */
  CallerCheck(int dataNodeId, boolean tls) {
    this.dataNodeId = dataNodeId;
    this.tls = tls;
  }

  /**
   * The caller of {@code call} if it may use a route that needs {@code need}: its identity, or null
   * over plain HTTP.
   *
   * @throws HttpError 403 {@value DataNodeErrors#FORBIDDEN} saying what the route needs and what
   *     the certificate names
   */
  PeerIdentity admit(HttpCall call, Need need) throws HttpError {
    if (!tls) {
      return null;
    }
    List<X509Certificate> chain = call.peerCertificates();
    if (chain.isEmpty()) {
      // the handshake requires a certificate, so only a server without TLS gets here
      throw refuse(call, need, "no client certificate");
    }
    PeerIdentity caller;
    try {
      caller = PeerIdentity.of(chain.get(0));
    } catch (CertificateException e) {
      throw refuse(call, need, e.getMessage());
    }
    if (!allows(caller, need)) {
      throw refuse(call, need, "the certificate names " + caller);
    }
    return caller;
  }

  private static boolean allows(PeerIdentity caller, Need need) {
    return switch (need) {
      case CONFIGNODE -> caller.kind() == PeerIdentity.Kind.MEMBER;
      case ANY_IDENTITY -> true;
      case ADMIN -> caller.kind() == PeerIdentity.Kind.CLIENT && caller.role() == ClientRole.ADMIN;
    };
  }

  private HttpError refuse(HttpCall call, Need need, String who) {
    String what = call.method() + " " + call.path();
    LOG.warn(
        "DataNode {} refused {} from {}: {}; it needs {}",
        dataNodeId,
        what,
        call.remoteAddress(),
        who,
        needed(need));
    return new HttpError(
        HttpURLConnection.HTTP_FORBIDDEN,
        DataNodeErrors.FORBIDDEN,
        "DataNode "
            + dataNodeId
            + " refused "
            + what
            + ": "
            + who
            + "; it needs "
            + needed(need)
            + ". Nothing was applied");
  }

  private static String needed(Need need) {
    return switch (need) {
      case CONFIGNODE -> "a ConfigNode's certificate (" + PeerIdentity.MEMBER_PREFIX + "<id>)";
      case ANY_IDENTITY -> "a certificate naming a Baton identity";
      case ADMIN ->
          "an admin client's certificate ("
              + PeerIdentity.ROLE_PREFIX
              + ClientRole.ADMIN.certificateName()
              + ")";
    };
  }
}
