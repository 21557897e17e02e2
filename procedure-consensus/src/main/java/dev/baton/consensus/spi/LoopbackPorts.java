package dev.baton.consensus.spi;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Free TCP ports on the loopback interface for the local clusters of tests, benchmarks and the
 * drill, whose members must know each other's ports before any of them binds.
 *
 * <p>A port the kernel picks for {@code bind(0)} comes from its ephemeral range, the range it also
 * gives every outgoing connection: between the choice and the member's bind, a connection of the
 * running cluster (or one still closing) could take it, and the member would fail to start with
 * "Address already in use". So ports are drawn outside that range (below it, or above it where the
 * kernel's range stops short of the last port), at random, checked bindable, and never handed out
 * twice by one process. Only where the ephemeral range leaves almost nothing outside it does the
 * kernel choose, still never a port handed out before.
 */
public final class LoopbackPorts {
  /** The lowest port handed out: clear of the well-known and most registered service ports. */
  static final int LOWEST = 10_000;

  /** The highest TCP port. */
  static final int HIGHEST = 65_535;

  /** The kernel's ephemeral range when it does not say (Linux's default). */
  static final Range DEFAULT_EPHEMERAL = new Range(32_768, 60_999);

  /** Fewer candidate ports than this outside the ephemeral range: the kernel chooses. */
  static final int MIN_CANDIDATES = 1_000;

  /** Candidates tried before giving up. */
  static final int MAX_ATTEMPTS = 1_000;

  private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

  private static final Logger LOG = LoggerFactory.getLogger(LoopbackPorts.class);

  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

  private static final AtomicBoolean KERNEL_WARNED = new AtomicBoolean();

  private LoopbackPorts() {}

  /** An inclusive range of ports. */
  record Range(int first, int last) {
    /** Ports at least {@link #LOWEST} below this range. */
    int below() {
      return Math.max(0, first - LOWEST);
    }

    /** Ports above this range. */
    int above() {
      return Math.max(0, HIGHEST - last);
    }

    boolean contains(int port) {
      return port >= first && port <= last;
    }
  }

  /** A loopback port free now, outside the ephemeral range, not handed out before here. */
  public static int free() throws IOException {
    return free(ephemeralRange());
  }

  /** As {@link #free()}, for a given ephemeral range. */
  static int free(Range ephemeral) throws IOException {
    int below = ephemeral.below();
    int candidates = below + ephemeral.above();
    if (candidates < MIN_CANDIDATES) {
      if (KERNEL_WARNED.compareAndSet(false, true)) {
        LOG.warn(
            "the ephemeral range {} leaves fewer than {} loopback ports outside it: the kernel"
                + " chooses them, and a local cluster's member may find its port taken",
            ephemeral,
            MIN_CANDIDATES);
      }
      return kernelChosen();
    }
    for (int i = 0; i < MAX_ATTEMPTS; i++) {
      int pick = ThreadLocalRandom.current().nextInt(candidates);
      int port = pick < below ? LOWEST + pick : ephemeral.last() + 1 + (pick - below);
      if (HANDED_OUT.add(port) && bindable(port)) {
        return port;
      }
    }
    throw new IOException(
        "no free loopback port outside the ephemeral range "
            + ephemeral
            + " after "
            + MAX_ATTEMPTS
            + " tries");
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
    for (int i = 0; i < MAX_ATTEMPTS; i++) {
      try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        if (HANDED_OUT.add(s.getLocalPort())) {
          return s.getLocalPort();
        }
      }
    }
    throw new IOException(
        "the kernel chose only ports handed out before, " + MAX_ATTEMPTS + " times in a row");
  }

  /** The kernel's ephemeral range, or Linux's default when it cannot be read. */
  static Range ephemeralRange() {
    try {
      String[] range = Files.readString(EPHEMERAL_RANGE).trim().split("\\s+");
      return new Range(Integer.parseInt(range[0]), Integer.parseInt(range[1]));
    } catch (IOException | RuntimeException unknown) {
      return DEFAULT_EPHEMERAL;
    }
  }
}
