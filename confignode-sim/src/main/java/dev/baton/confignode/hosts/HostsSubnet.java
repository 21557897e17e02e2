package dev.baton.confignode.hosts;

/**
 * The addresses of the hosts: {@value #NETWORK}/{@value #PREFIX_LENGTH}, a slice of the
 * documentation range 192.0.2.0/24 that leaves its low addresses alone (a machine may sit on that
 * range itself, its gateway at 192.0.2.1); the test process's side is the slice's first address,
 * the hosts take the following ones in turn.
 */
final class HostsSubnet {
  /** The slice's network address. */
  static final String NETWORK = "192.0.2.192";

  /** Bits of the slice's prefix: 64 addresses. */
  static final int PREFIX_LENGTH = 26;

  /** The offset of the test process's side in the slice. */
  static final int TEST_SIDE = 1;

  /** The offset of the first host. */
  static final int FIRST_HOST = 2;

  /** The offset of the last host (the one after it is the slice's broadcast address). */
  static final int LAST_HOST = (1 << (Integer.SIZE - PREFIX_LENGTH)) - 2;

  /** Bits of a host's own route: one address. */
  static final int HOST_PREFIX_LENGTH = 32;

  private static final int OCTET_BITS = 8;
  private static final int OCTET_MASK = 0xff;
  private static final int OCTETS = 4;

  private HostsSubnet() {}

  /** {@code NETWORK/PREFIX_LENGTH}. */
  static String cidr() {
    return NETWORK + "/" + PREFIX_LENGTH;
  }

  /** The address at {@code offset} in the slice. */
  static String address(int offset) {
    if (offset < TEST_SIDE || offset > LAST_HOST) {
      throw new IllegalArgumentException("no host address at offset " + offset + " of " + cidr());
    }
    return text(value(NETWORK) + offset);
  }

  /** The address of the test process's side. */
  static String testSide() {
    return address(TEST_SIDE);
  }

  /** {@code address} with the slice's prefix length, as an interface takes it. */
  static String onInterface(String address) {
    return address + "/" + PREFIX_LENGTH;
  }

  /** {@code address} as a route to it alone. */
  static String route(String address) {
    return address + "/" + HOST_PREFIX_LENGTH;
  }

  private static int value(String dotted) {
    String[] parts = dotted.split("\\.");
    int v = 0;
    for (String p : parts) {
      v = (v << OCTET_BITS) | Integer.parseInt(p);
    }
    return v;
  }

  private static String text(int v) {
    StringBuilder s = new StringBuilder();
    for (int i = OCTETS - 1; i >= 0; i--) {
      s.append((v >>> (i * OCTET_BITS)) & OCTET_MASK).append(i == 0 ? "" : ".");
    }
    return s.toString();
  }
}
