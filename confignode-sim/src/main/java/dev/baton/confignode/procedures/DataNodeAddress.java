package dev.baton.confignode.procedures;

import java.util.regex.Pattern;

/**
 * A DataNode's address as an operator gives it: a host name or an IP address, a colon and a port
 * from 1 to 65535, nothing else. The leader calls this address, so anything that could turn it into
 * another URL (a path, user info, a query, a fragment, spaces) is refused before it is stored.
 */
public final class DataNodeAddress {
  /** The largest TCP port. */
  public static final int MAX_PORT = 65_535;

  /** The longest host name DNS allows. */
  static final int MAX_HOST_LENGTH = 253;

  /** One DNS label: letters, digits and inner hyphens, 1 to 63 characters. */
  private static final String LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";

  private static final Pattern HOST_NAME = Pattern.compile(LABEL + "(?:\\." + LABEL + ")*");

  private static final Pattern IPV4 =
      Pattern.compile(
          "(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)");

  /** A bracketed IPv6 address: hexadecimal groups, colons and dots (an embedded IPv4) only. */
  private static final Pattern IPV6 = Pattern.compile("\\[[0-9A-Fa-f:.]{2,45}\\]");

  private static final Pattern PORT = Pattern.compile("[0-9]{1,5}");

  private DataNodeAddress() {}

  /**
   * Checks {@code address}.
   *
   * @return {@code address}, unchanged
   * @throws IllegalArgumentException naming what is wrong and what is allowed
   */
  public static String check(String address) {
    return check(address, "DataNode");
  }

  /** As {@link #check(String)}, for the address of {@code what} (a DataNode, a ConfigNode). */
  public static String check(String address, String what) {
    if (address == null) {
      throw new IllegalArgumentException("a " + what + " address is required (HOST:PORT)");
    }
    int colon = address.lastIndexOf(':');
    if (colon <= 0) {
      throw invalid(what, address, "it has no ':PORT'");
    }
    String host = address.substring(0, colon);
    String port = address.substring(colon + 1);
    boolean validHost =
        host.startsWith("[")
            ? IPV6.matcher(host).matches()
            : host.length() <= MAX_HOST_LENGTH
                && (IPV4.matcher(host).matches() || HOST_NAME.matcher(host).matches());
    if (!validHost) {
      throw invalid(what, address, "'" + host + "' is not a host name or an IP address");
    }
    if (!PORT.matcher(port).matches()
        || Integer.parseInt(port) < 1
        || Integer.parseInt(port) > MAX_PORT) {
      throw invalid(what, address, "the port must be 1-" + MAX_PORT);
    }
    return address;
  }

  private static IllegalArgumentException invalid(String what, String address, String why) {
    return new IllegalArgumentException(
        what
            + " address '"
            + address
            + "' is not HOST:PORT ("
            + why
            + "): a host name or an IP address ([v6] in brackets) and a port 1-"
            + MAX_PORT
            + ", nothing else");
  }
}
