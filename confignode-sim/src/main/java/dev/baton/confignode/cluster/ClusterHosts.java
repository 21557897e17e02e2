package dev.baton.confignode.cluster;

import java.util.Arrays;
import java.util.stream.Collectors;

/** Where a {@link ProcessCluster}'s processes run. */
public enum ClusterHosts {
  /** Every process on this host's loopback, on ports chosen free. */
  LOOPBACK("loopback"),
  /**
   * Every process on a host of its own: a network namespace with its own address ({@link
   * dev.baton.confignode.hosts.NetnsHosts}), on fixed ports. Needs root and iproute2.
   */
  NETNS("netns");

  private final String label;

  ClusterHosts(String label) {
    this.label = label;
  }

  /** Its name on a command line. */
  public String label() {
    return label;
  }

  @Override
  public String toString() {
    return label;
  }

  /** The mode named {@code label}. */
  public static ClusterHosts of(String label) {
    for (ClusterHosts h : values()) {
      if (h.label.equals(label)) {
        return h;
      }
    }
    throw new IllegalArgumentException(
        "hosts are one of "
            + Arrays.stream(values()).map(ClusterHosts::label).collect(Collectors.joining(", "))
            + ": "
            + label);
  }
}
