package dev.baton.confignode.hosts;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hosts on this machine, each a network namespace of its own: a bridge in a namespace of its own
 * joins them; each host has a veth into it, an address of {@link HostsSubnet} ({@code
 * 192.0.2.192/26}), {@code lo} up and no route but the connected subnet; the test process reaches
 * them through one veth of its own in the root namespace, on the subnet's first address. A command
 * runs on a host under {@code ip netns exec} ({@link #launcher}), which execs it: the process
 * started is the command itself.
 *
 * <p>Every name starts with {@value #PREFIX}: {@link #open} first removes what a crashed earlier
 * run left (its namespaces and root-side veth), so one run at a time may hold hosts on a machine
 * ({@link NetnsLock}). {@link #close} removes everything but an unreachable route to the subnet in
 * the root namespace ({@link #FALLBACK_METRIC}), which keeps late packets to the removed hosts from
 * leaving by another interface. Needs root and {@code ip} (iproute2), and says which is missing.
 * Thread-safe.
 */
public final class NetnsHosts implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NetnsHosts.class);

  /** What every namespace and root-side link of the hosts is named with. */
  public static final String PREFIX = "baton-";

  /** What a host may be called: it becomes part of interface names, at most 15 characters. */
  static final Pattern HOST_NAME = Pattern.compile("[a-z0-9]{1,12}");

  /** Random bytes of a run's id in its names. */
  static final int RUN_ID_BYTES = 2;

  /** The bridge in the bridge's namespace. */
  static final String BRIDGE = "br0";

  /** The bridge's end of the test process's veth. */
  static final String UPLINK = "uplink";

  /** A host's end of its veth, in its namespace. */
  static final String HOST_LINK = "veth0";

  /** The bridge's end of a host's veth is this followed by the host's name. */
  static final String BRIDGE_PORT_PREFIX = "h-";

  /**
   * The metric of the root namespace's fallback route to the subnet, an unreachable one that stays
   * after {@link #close}: while the test process's veth exists its route wins (metric 0), and
   * afterwards a late packet of a connection to a host (a socket closed after its host was removed)
   * is refused at once instead of leaving by another interface.
   */
  static final int FALLBACK_METRIC = 4242;

  /** How long a new host may take until the test process reaches it. */
  static final Duration HOST_UP_WAIT = Duration.ofSeconds(10);

  private final HostCommands commands;
  private final NetnsLock lock;
  private final Probes probes;
  private final String runId;
  private final Map<String, String> addresses = new LinkedHashMap<>();
  private final NetnsPartitions partitions;
  private boolean bridgeBuilt;
  private boolean closed;

  private NetnsHosts(HostCommands commands, NetnsLock lock, String runId) {
    this.commands = commands;
    this.lock = lock;
    this.runId = runId;
    this.probes = new Probes(commands);
    this.partitions = new NetnsPartitions(this, commands, probes);
  }

  /**
   * Removes what an earlier run left, then builds the bridge and the test process's veth; hosts
   * come with {@link #addHost}.
   *
   * @throws IllegalStateException without root or {@code ip}, or if the root namespace uses the
   *     subnet already
   */
  public static NetnsHosts open() throws InterruptedException {
    HostCommands commands = HostCommands.require();
    NetnsLock lock = NetnsLock.acquire();
    NetnsHosts hosts;
    try {
      removeLeftovers(commands);
      requireSubnetFree(commands);
      byte[] id = new byte[RUN_ID_BYTES];
      new SecureRandom().nextBytes(id);
      hosts = new NetnsHosts(commands, lock, HexFormat.of().formatHex(id));
    } catch (RuntimeException e) {
      lock.close();
      throw e;
    }
    try {
      hosts.buildBridge();
      return hosts;
    } catch (RuntimeException e) {
      hosts.close();
      throw e;
    }
  }

  /**
   * Removes every namespace and root-side link named {@value #PREFIX}...: what a run that could not
   * close left. Returns their names.
   */
  static List<String> removeLeftovers(HostCommands commands) {
    List<String> removed = new ArrayList<>();
    for (String line : commands.ip("-o", "link", "show").split("\n")) {
      String[] fields = line.split(":\\s+");
      if (fields.length > 1) {
        String link = fields[1].split("@")[0];
        if (link.startsWith(PREFIX)) {
          commands.ip("link", "delete", link); // before its peer's namespace, which frees it late
          removed.add(link);
        }
      }
    }
    for (String line : commands.ip("netns", "list").split("\n")) {
      String ns = line.strip().split(" ")[0];
      if (ns.startsWith(PREFIX)) {
        commands.ip("netns", "delete", ns);
        removed.add(ns);
      }
    }
    if (!removed.isEmpty()) {
      LOG.info("removed what an earlier run of hosts left: {}", removed);
    }
    return removed;
  }

  /**
   * Refuses a subnet the root namespace routes elsewhere or has live neighbours in (entries that
   * failed to resolve do not count), then puts the fallback route in place.
   */
  private static void requireSubnetFree(HostCommands commands) {
    List<String> used = new ArrayList<>();
    for (String route :
        commands.ip("-4", "route", "show", "root", HostsSubnet.cidr()).split("\n")) {
      if (!route.isBlank() && !route.strip().equals(fallbackRoute())) {
        used.add(route.strip());
      }
    }
    for (String n : commands.ip("-4", "neigh", "show", "to", HostsSubnet.cidr()).split("\n")) {
      if (!n.isBlank() && !n.contains("FAILED") && !n.contains("INCOMPLETE")) {
        used.add(n.strip());
      }
    }
    if (!used.isEmpty()) {
      throw new IllegalStateException(
          "the hosts' subnet " + HostsSubnet.cidr() + " is in use on this machine: " + used);
    }
    commands.ip(
        "route",
        "replace",
        "unreachable",
        HostsSubnet.cidr(),
        "metric",
        Integer.toString(FALLBACK_METRIC));
  }

  /** The fallback route as {@code ip route} lists it. */
  private static String fallbackRoute() {
    return "unreachable " + HostsSubnet.cidr() + " metric " + FALLBACK_METRIC;
  }

  private void buildBridge() {
    String bridgeNs = bridgeNamespace();
    commands.ip("netns", "add", bridgeNs);
    bridgeBuilt = true;
    commands.ip("-n", bridgeNs, "link", "add", BRIDGE, "type", "bridge");
    commands.ip("-n", bridgeNs, "link", "set", BRIDGE, "up");
    String rootLink = rootLink();
    commands.ip("link", "add", rootLink, "type", "veth", "peer", "name", UPLINK, "netns", bridgeNs);
    commands.ip("addr", "add", HostsSubnet.onInterface(HostsSubnet.testSide()), "dev", rootLink);
    commands.ip("link", "set", rootLink, "up");
    commands.ip("-n", bridgeNs, "link", "set", UPLINK, "master", BRIDGE, "up");
    LOG.debug("bridge {} and {} ({}) up", bridgeNs, rootLink, HostsSubnet.testSide());
  }

  /**
   * Adds host {@code name} ({@link #HOST_NAME}) with the next address of the subnet, and waits
   * until the test process reaches it. Returns its address.
   */
  public synchronized String addHost(String name) {
    requireOpen();
    if (!HOST_NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "a host name is 1 to 12 lower-case letters or digits: " + name);
    }
    if (addresses.containsKey(name)) {
      throw new IllegalArgumentException("host " + name + " exists already");
    }
    String address = HostsSubnet.address(HostsSubnet.FIRST_HOST + addresses.size());
    String ns = namespace(name);
    String bridgeNs = bridgeNamespace();
    String port = BRIDGE_PORT_PREFIX + name;
    commands.ip("netns", "add", ns);
    addresses.put(name, address);
    commands.ip("-n", bridgeNs, "link", "add", port, "type", "veth", "peer", "name", HOST_LINK);
    commands.ip("-n", bridgeNs, "link", "set", HOST_LINK, "netns", ns);
    commands.ip("-n", bridgeNs, "link", "set", port, "master", BRIDGE, "up");
    commands.ip("-n", ns, "addr", "add", HostsSubnet.onInterface(address), "dev", HOST_LINK);
    commands.ip("-n", ns, "link", "set", HOST_LINK, "up");
    commands.ip("-n", ns, "link", "set", "lo", "up");
    awaitReached(name, address);
    LOG.debug("host {} up in {} at {}", name, ns, address);
    return address;
  }

  private void awaitReached(String name, String address) {
    long deadline = System.nanoTime() + HOST_UP_WAIT.toNanos();
    Reach last;
    do {
      last = Probes.fromTestSide(address, Probes.PORT);
      if (last.reached()) {
        return;
      }
    } while (System.nanoTime() < deadline);
    throw new IllegalStateException(
        "host " + name + " (" + address + ") not reached in " + HOST_UP_WAIT + ": " + last);
  }

  /** The hosts, in the order they were added. */
  public synchronized List<String> hosts() {
    return List.copyOf(addresses.keySet());
  }

  /** The address of host {@code name}. */
  public synchronized String address(String name) {
    String address = addresses.get(name);
    if (address == null) {
      throw new IllegalArgumentException("no such host: " + name + " (hosts: " + hosts() + ")");
    }
    return address;
  }

  /** The address the hosts reach the test process at. */
  public String testSideAddress() {
    return HostsSubnet.testSide();
  }

  /** The namespace of host {@code name}. */
  public String namespace(String name) {
    return PREFIX + runId + "-" + name;
  }

  /** The command line prefix that runs a command on host {@code name}. */
  public List<String> launcher(String name) {
    address(name);
    return commands.inNamespace(namespace(name), List.of());
  }

  /** A probe connection from host {@code from} to {@code port} on host {@code to}. */
  public Reach probe(String from, String to, int port) {
    return probes.fromNamespace(namespace(from), address(to), port);
  }

  /** A probe connection from host {@code from} to {@code address:port}, any address. */
  public Reach probeAddress(String from, String address, int port) {
    return probes.fromNamespace(namespace(from), address, port);
  }

  /** A probe connection from the test process to {@code port} on host {@code to}. */
  public Reach probeFromTestSide(String to, int port) {
    return Probes.fromTestSide(address(to), port);
  }

  /** Cuts and heals between the hosts. */
  public NetnsPartitions partitions() {
    return partitions;
  }

  private String bridgeNamespace() {
    return PREFIX + runId + "-bridge";
  }

  private String rootLink() {
    return PREFIX + runId;
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException("the hosts are closed");
    }
  }

  /**
   * Removes every host's namespace, the bridge's and the test process's veth. Stop the processes on
   * the hosts first: a process keeps running without its namespace's links.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      // the root-side link first: deleting its peer's namespace would free it only later
      commands.ipQuietly("link", "delete", rootLink());
      for (String name : addresses.keySet()) {
        commands.ipQuietly("netns", "delete", namespace(name));
      }
      if (bridgeBuilt) {
        commands.ipQuietly("netns", "delete", bridgeNamespace());
      }
      LOG.debug("hosts of run {} removed", runId);
    } finally {
      lock.close();
    }
  }
}
