package dev.baton.confignode.hosts;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Network faults between the hosts of a {@link NetnsHosts}, each in place only once a probe
 * connection ({@link Probes}) showed it: a one-way cut drops the packets one host sends another (a
 * blackhole route to the other's address in the sender's namespace, so its kernel refuses to send
 * them); a cut is one each way; an isolated host is cut from every other host but still reached by
 * the test process, which may watch it; {@link #heal} removes every cut. A one-way cut stops TCP
 * connections either way from being opened (the handshake needs both directions), while data the
 * other host sends on an open connection still arrives. Thread-safe.
 */
public final class NetnsPartitions {
  private static final Logger LOG = LoggerFactory.getLogger(NetnsPartitions.class);

  /**
   * A one-way cut: packets from {@code from} to {@code to} are dropped.
   *
   * @param from the sending host
   * @param to the host its packets no longer reach
   */
  public record Cut(String from, String to) {
    @Override
    public String toString() {
      return from + " -x-> " + to;
    }
  }

  private final NetnsHosts hosts;
  private final HostCommands commands;
  private final Probes probes;
  private final Set<Cut> cuts = new LinkedHashSet<>();

  NetnsPartitions(NetnsHosts hosts, HostCommands commands, Probes probes) {
    this.hosts = hosts;
    this.commands = commands;
    this.probes = probes;
  }

  /** Drops what {@code from} sends {@code to}; verified by a probe from {@code from}. */
  public synchronized void cutOneWay(String from, String to) {
    apply(List.of(new Cut(from, to)));
  }

  /** Cuts {@code a} and {@code b} from each other, both ways; verified by a probe each way. */
  public synchronized void cut(String a, String b) {
    apply(List.of(new Cut(a, b), new Cut(b, a)));
  }

  /**
   * Cuts {@code host} from every other host, both ways (the test process still reaches it);
   * verified by a probe each way.
   */
  public synchronized void isolate(String host) {
    hosts.address(host);
    List<Cut> all = new ArrayList<>();
    for (String other : hosts.hosts()) {
      if (!other.equals(host)) {
        all.add(new Cut(host, other));
        all.add(new Cut(other, host));
      }
    }
    apply(all);
  }

  /**
   * Puts every cut of {@code wanted} in place, then verifies each with a probe: the cuts start
   * together (a partition of many pairs lands at once, not pair by pair).
   */
  public synchronized void cutAll(Collection<Cut> wanted) {
    apply(List.copyOf(wanted));
  }

  /**
   * Removes every cut (the blackhole routes of each host that had one), and verifies with a probe
   * that each cut pair reaches each other again.
   */
  public synchronized void heal() {
    List<Cut> healed = List.copyOf(cuts);
    for (String from : healed.stream().map(Cut::from).distinct().toList()) {
      commands.ip("-n", hosts.namespace(from), "route", "flush", "type", "blackhole");
    }
    cuts.clear();
    for (Cut c : healed) {
      Reach r = probe(c);
      if (!r.reached()) {
        throw new IllegalStateException("healed " + c + " but a probe says " + r);
      }
    }
    LOG.debug("healed {}", healed);
  }

  /** The cuts in place. */
  public synchronized Set<Cut> cuts() {
    return Set.copyOf(cuts);
  }

  private void apply(List<Cut> wanted) {
    for (Cut c : wanted) {
      if (c.from().equals(c.to())) {
        throw new IllegalArgumentException("a host cannot be cut from itself: " + c.from());
      }
      commands.ip(
          "-n",
          hosts.namespace(c.from()),
          "route",
          "replace",
          "blackhole",
          HostsSubnet.route(hosts.address(c.to())));
      cuts.add(c); // in place, so heal removes it even if its probe fails below
    }
    for (Cut c : wanted) {
      Reach r = probe(c);
      if (r.reached()) {
        throw new IllegalStateException("cut " + c + " but a probe still reaches: " + r);
      }
    }
    LOG.debug("cut {}", wanted);
  }

  private Reach probe(Cut c) {
    return probes.fromNamespace(hosts.namespace(c.from()), hosts.address(c.to()), Probes.PORT);
  }
}
