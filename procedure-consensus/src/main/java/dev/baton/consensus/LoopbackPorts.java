package dev.baton.consensus;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free TCP ports on the loopback interface for the local clusters of tests, benchmarks and the
 * drill, whose members must know each other's ports before any of them binds.
 *
 * <p>A port the kernel picks for {@code bind(0)} comes from its ephemeral range, the range it also
 * gives every outgoing connection: between the choice and the member's bind, a connection of the
 * running cluster (or one still closing) could take it, and the member failed to start with
 * "Address already in use" (seen in CI: a gRPC server of a 3-node test cluster). So ports are drawn
 * below that range, at random, checked bindable, and never handed out twice by one process.
 */
public final class LoopbackPorts {
  /** The lowest port handed out: clear of the well-known and most registered service ports. */
  static final int LOWEST = 10_000;

  /** Where the ephemeral range starts when the kernel does not say (Linux's default). */
  static final int DEFAULT_EPHEMERAL_START = 32_768;

  /** Fewer candidate ports than this below the ephemeral range: fall back to {@code bind(0)}. */
  static final int MIN_RANGE = 1_000;

  /** Random candidates tried before giving up. */
  static final int MAX_ATTEMPTS = 1_000;

  private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

  private LoopbackPorts() {}

  /** A loopback port free now, below the ephemeral range, not handed out before here. */
  public static int free() throws IOException {
    int top = ephemeralStart();
    if (top - LOWEST < MIN_RANGE) {
      return kernelChosen();
    }
    for (int i = 0; i < MAX_ATTEMPTS; i++) {
      int port = ThreadLocalRandom.current().nextInt(LOWEST, top);
      if (HANDED_OUT.add(port) && bindable(port)) {
        return port;
      }
    }
    throw new IOException(
        "no free loopback port in [" + LOWEST + ", " + top + ") after " + MAX_ATTEMPTS + " tries");
  }

  private static boolean bindable(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
      return true;
    } catch (IOException taken) {
      return false;
    }
  }

  private static int kernelChosen() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      HANDED_OUT.add(s.getLocalPort());
      return s.getLocalPort();
    }
  }

  /** The first port of the kernel's ephemeral range. */
  static int ephemeralStart() {
    try {
      String[] range = Files.readString(EPHEMERAL_RANGE).trim().split("\\s+");
      return Integer.parseInt(range[0]);
    } catch (IOException | RuntimeException unknown) {
      return DEFAULT_EPHEMERAL_START;
    }
  }
}
