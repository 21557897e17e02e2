package dev.baton.consensus.tls;

import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;

/**
 * Who the other end of a connection is, as its certificate (one of the cluster's CA) names it. This
 * class is the one place the convention is defined; certificate generators encode with {@link
 * #uri()} and servers decode with {@link #of(X509Certificate)}.
 *
 * <p>The convention: a certificate names exactly one identity, as a URI subject alternative name
 * (SAN):
 *
 * <ul>
 *   <li>a <b>member</b> (a Raft peer of the cluster): {@code urn:baton:peer:<peerId>}. Its
 *       certificate also names, as DNS or IP SANs, the host others reach it by (TLS hostname
 *       verification checks them), and is good for server and client authentication: a member both
 *       serves and calls the others;
 *   <li>a <b>client</b> (a process outside the group, an operator's tool): {@code
 *       urn:baton:role:<role>}, where role is {@code reader}, {@code operator} or {@code admin}
 *       ({@link ClientRole}); the holder's name (the principal in logs) is the subject's common
 *       name (CN);
 *   <li>a <b>DataNode</b>: {@code urn:baton:datanode:<id>}. It is neither a member nor a client of
 *       the Raft service, which refuses it.
 * </ul>
 *
 * Ids and names are 1 to {@value #MAX_NAME_LENGTH} characters of {@code [A-Za-z0-9._-]}. A
 * certificate with none of these SANs, with two of them (two peers, a peer and a role, ...), or
 * with an unknown role has no identity and is refused. The subject's CN of a member is by custom
 * its peer id too, but only the SAN counts. Every cluster has a CA of its own: a certificate says
 * which peer it is, not which cluster.
 *
 * @param kind member, client or DataNode
 * @param name the peer id of a member, the CN of a client, the id of a DataNode
 * @param role a client's role; null for members and DataNodes
 */
public record PeerIdentity(Kind kind, String name, ClientRole role) {
  /** The kinds of identity a certificate can carry. */
  public enum Kind {
    MEMBER,
    CLIENT,
    DATANODE
  }

  /** The URI SAN of a member, followed by its peer id. */
  public static final String MEMBER_PREFIX = "urn:baton:peer:";

  /** The URI SAN of a client, followed by its role. */
  public static final String ROLE_PREFIX = "urn:baton:role:";

  /** The URI SAN of a DataNode, followed by its id. */
  public static final String DATANODE_PREFIX = "urn:baton:datanode:";

  /** The longest id or name. */
  public static final int MAX_NAME_LENGTH = 64;

  /** The type number of a URI in {@link X509Certificate#getSubjectAlternativeNames()}. */
  static final int SAN_URI = 6;

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1," + MAX_NAME_LENGTH + "}");

  public PeerIdentity {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(name, "name");
    if ((role != null) != (kind == Kind.CLIENT)) {
      throw new IllegalArgumentException("a client, and only a client, has a role: " + kind);
    }
    if (kind != Kind.CLIENT) {
      requireName(name, kind == Kind.MEMBER ? "a peer id" : "a DataNode id");
    }
  }

  /** The identity of the member {@code peerId}. */
  public static PeerIdentity member(String peerId) {
    return new PeerIdentity(Kind.MEMBER, peerId, null);
  }

  /** The identity of a client named {@code name} (its CN) with {@code role}. */
  public static PeerIdentity client(String name, ClientRole role) {
    return new PeerIdentity(Kind.CLIENT, name, Objects.requireNonNull(role, "role"));
  }

  /** The identity of the DataNode {@code id}. */
  public static PeerIdentity dataNode(String id) {
    return new PeerIdentity(Kind.DATANODE, id, null);
  }

  /** The URI SAN that names this identity in a certificate. */
  public String uri() {
    return switch (kind) {
      case MEMBER -> MEMBER_PREFIX + name;
      case CLIENT -> ROLE_PREFIX + role.certificateName();
      case DATANODE -> DATANODE_PREFIX + name;
    };
  }

  /** Whether this is the member {@code peerId}. */
  public boolean isMember(String peerId) {
    return kind == Kind.MEMBER && name.equals(peerId);
  }

  /**
   * The identity {@code cert} names.
   *
   * @throws CertificateException saying why it names none
   */
  public static PeerIdentity of(X509Certificate cert) throws CertificateException {
    List<PeerIdentity> found = new ArrayList<>();
    for (String uri : uriNames(cert)) {
      PeerIdentity id = fromUri(uri, cert);
      if (id != null) {
        found.add(id);
      }
    }
    if (found.size() == 1) {
      return found.get(0);
    }
    throw new CertificateException(
        "certificate "
            + cert.getSubjectX500Principal().getName()
            + (found.isEmpty()
                ? " names no Baton identity (a URI subject alternative name "
                    + MEMBER_PREFIX
                    + "<peerId>, "
                    + ROLE_PREFIX
                    + "<reader|operator|admin> or "
                    + DATANODE_PREFIX
                    + "<id>)"
                : " names more than one Baton identity: " + found));
  }

  private static PeerIdentity fromUri(String uri, X509Certificate cert)
      throws CertificateException {
    if (uri.startsWith(MEMBER_PREFIX)) {
      return member(checked(uri.substring(MEMBER_PREFIX.length()), uri));
    }
    if (uri.startsWith(DATANODE_PREFIX)) {
      return dataNode(checked(uri.substring(DATANODE_PREFIX.length()), uri));
    }
    if (uri.startsWith(ROLE_PREFIX)) {
      String roleName = uri.substring(ROLE_PREFIX.length());
      ClientRole role = ClientRole.fromCertificateName(roleName);
      if (role == null) {
        throw new CertificateException(
            "certificate "
                + cert.getSubjectX500Principal().getName()
                + " names an unknown role "
                + roleName
                + " (reader, operator or admin)");
      }
      return client(commonName(cert), role);
    }
    return null; // another URI: not Baton's
  }

  private static String checked(String name, String uri) throws CertificateException {
    if (!NAME.matcher(name).matches()) {
      throw new CertificateException(
          "the subject alternative name "
              + uri
              + " does not name an id of 1 to "
              + MAX_NAME_LENGTH
              + " characters [A-Za-z0-9._-]");
    }
    return name;
  }

  private static List<String> uriNames(X509Certificate cert) throws CertificateParsingException {
    Collection<List<?>> names = cert.getSubjectAlternativeNames();
    List<String> uris = new ArrayList<>();
    if (names != null) {
      for (List<?> n : names) {
        if (n.size() == 2 && Integer.valueOf(SAN_URI).equals(n.get(0))) {
          uris.add(String.valueOf(n.get(1)));
        }
      }
    }
    return uris;
  }

  /** The subject's common name, or the whole subject when it has none. */
  static String commonName(X509Certificate cert) {
    String subject = cert.getSubjectX500Principal().getName();
    try {
      for (Rdn rdn : new LdapName(subject).getRdns()) {
        if ("CN".equalsIgnoreCase(rdn.getType())) {
          return String.valueOf(rdn.getValue());
        }
      }
    } catch (InvalidNameException e) {
      // an X.500 principal's RFC 2253 form always parses; fall through to the whole subject
    }
    return subject;
  }

  private static void requireName(String name, String what) {
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          what
              + " in a certificate is 1 to "
              + MAX_NAME_LENGTH
              + " characters [A-Za-z0-9._-]: "
              + name);
    }
  }

  @Override
  public String toString() {
    return switch (kind) {
      case MEMBER -> "member " + name;
      case CLIENT -> "client " + name + " (" + role.certificateName() + ")";
      case DATANODE -> "DataNode " + name;
    };
  }
}
