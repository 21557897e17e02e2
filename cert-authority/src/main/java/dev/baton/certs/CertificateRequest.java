package dev.baton.certs;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What a certificate to issue names: a subject common name, URI subject alternative names (where
 * identities such as a member's peer id go), host names and IP addresses (what TLS hostname
 * verification checks on a server), and what its key may authenticate.
 *
 * @param commonName the subject's CN
 * @param uris URI subject alternative names
 * @param hosts DNS names and IP address literals, each a subject alternative name of its kind
 * @param usages server and/or client authentication
 */
public record CertificateRequest(
    String commonName, List<String> uris, List<String> hosts, Set<Usage> usages) {
  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

  public CertificateRequest {
    Objects.requireNonNull(commonName, "commonName");
    if (commonName.isBlank()) {
      throw new IllegalArgumentException("a certificate's common name must not be blank");
    }
    uris = List.copyOf(uris);
    hosts = List.copyOf(hosts);
    if (usages.isEmpty()) {
      throw new IllegalArgumentException(
          "a certificate for " + commonName + " needs a usage: SERVER, CLIENT or both");
    }
    usages = Set.copyOf(usages);
  }

  /** A request for {@code commonName} with no alternative names yet, for client use. */
  public static CertificateRequest named(String commonName) {
    return new CertificateRequest(commonName, List.of(), List.of(), EnumSet.of(Usage.CLIENT));
  }

  /** This request with one more URI subject alternative name. */
  public CertificateRequest withUri(String uri) {
    List<String> more = new ArrayList<>(uris);
    more.add(uri);
    return new CertificateRequest(commonName, more, hosts, usages);
  }

  /** This request with more DNS names or IP address literals. */
  public CertificateRequest withHosts(List<String> names) {
    List<String> more = new ArrayList<>(hosts);
    more.addAll(names);
    return new CertificateRequest(commonName, uris, more, usages);
  }

  /** This request with these usages instead of its own. */
  public CertificateRequest withUsages(Set<Usage> these) {
    return new CertificateRequest(commonName, uris, hosts, these);
  }

  /** Whether {@code host} is an IP address literal (IPv4, or IPv6 with its colons). */
  static boolean isIpLiteral(String host) {
    return IPV4.matcher(host).matches() || host.contains(":");
  }
}
