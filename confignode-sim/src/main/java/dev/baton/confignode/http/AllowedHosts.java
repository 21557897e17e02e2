package dev.baton.confignode.http;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The names a server answers to in the {@code Host} header: its bind address, the loopback names
 * ({@code 127.0.0.1}, {@code localhost}, {@code [::1]}) when it is bound to loopback or to every
 * interface, and the names it is told (a DNS name or address clients use). A request naming any
 * other host is refused: a web page that makes a browser resolve its own domain to this machine
 * (DNS rebinding) still sends its own name in {@code Host}.
 */
public final class AllowedHosts {
  private static final List<String> LOOPBACK_NAMES = List.of("127.0.0.1", "localhost", "::1");

  private final Set<String> names;

  private AllowedHosts(Set<String> names) {
    this.names = Set.copyOf(names);
  }

  /** The names of a server bound to {@code bindHost}, plus {@code extra}. */
  public static AllowedHosts of(String bindHost, List<String> extra) {
    Set<String> names = new LinkedHashSet<>();
    names.add(normalize(bindHost));
    if (isLoopbackOrAny(bindHost)) {
      names.addAll(LOOPBACK_NAMES);
    }
    extra.forEach(n -> names.add(normalize(n)));
    return new AllowedHosts(names);
  }

  /** Whether {@code bindHost} is a loopback address (or a name of one). */
  public static boolean isLoopback(String bindHost) {
    return address(bindHost).map(InetAddress::isLoopbackAddress).orElse(false);
  }

  private static boolean isLoopbackOrAny(String bindHost) {
    return address(bindHost).map(a -> a.isLoopbackAddress() || a.isAnyLocalAddress()).orElse(false);
  }

  private static Optional<InetAddress> address(String host) {
    try {
      return Optional.of(InetAddress.getByName(host));
    } catch (UnknownHostException e) {
      return Optional.empty();
    }
  }

  /**
   * Whether a {@code Host} header value ({@code NAME}, {@code NAME:PORT}, {@code [V6]:PORT}) is
   * ours.
   */
  public boolean allows(String hostHeader) {
    if (hostHeader == null || hostHeader.isBlank()) {
      return false;
    }
    return names.contains(normalize(hostPart(hostHeader.strip())));
  }

  /** The names allowed, for messages. */
  public Set<String> names() {
    return names;
  }

  private static String hostPart(String header) {
    if (header.startsWith("[")) {
      int close = header.indexOf(']');
      return close < 0 ? header : header.substring(1, close);
    }
    int colon = header.indexOf(':');
    return colon < 0 || header.indexOf(':', colon + 1) >= 0 ? header : header.substring(0, colon);
  }

  private static String normalize(String host) {
    String h = host.strip().toLowerCase(Locale.ROOT);
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    if (h.endsWith(".")) {
      h = h.substring(0, h.length() - 1);
    }
    if (h.equals("0:0:0:0:0:0:0:1")) {
      h = "::1";
    }
    return h;
  }
}
