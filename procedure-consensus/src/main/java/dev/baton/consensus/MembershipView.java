package dev.baton.consensus;

import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerProto;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.server.RaftConfiguration;

/**
 * Who the members of the cluster are now, with their Raft addresses, as one member sees it: what
 * the access checks ({@link AccessPolicy}) and the trust of outgoing connections ({@link
 * MemberTrustManager}) consult, so a member added to the group is accepted and a removed one
 * refused without a restart.
 *
 * <p>A peer is a member when it is in:
 *
 * <ul>
 *   <li>the newest configuration this node applied ({@link #applied}; both sides of a joint one),
 *       or at start the one in its storage. Older entries replayed from the log change nothing;
 *   <li>the configuration Ratis holds now (appended, maybe not yet applied, or installed with a
 *       snapshot), read live from the division;
 *   <li>the additions this node, as leader, is making ({@link #expect}): the leader calls a new
 *       peer before any configuration names it;
 *   <li>the peers it was started with, until it has been a member itself: a node joining the
 *       cluster knows its members only from its start flags while it replays older configurations.
 * </ul>
 *
 * It also tells when this node was removed: a configuration newer than one that held it no longer
 * names it (not even as the old side of a joint configuration).
 */
final class MembershipView {
  private final String nodeId;
  private final Map<String, InetSocketAddress> startPeers;
  private final Map<String, InetSocketAddress> expected = new ConcurrentHashMap<>();
  private volatile Supplier<Optional<RaftConfiguration>> live = Optional::empty;
  private volatile Map<String, InetSocketAddress> applied;
  private volatile long appliedIndex = -1;
  private volatile boolean wasMember;
  private volatile boolean removed;

  /**
   * @param startPeers the peers this node was started with (every member's address, by id)
   * @param joining whether this node joins a running cluster (it is not a member yet)
   */
  MembershipView(String nodeId, Map<String, InetSocketAddress> startPeers, boolean joining) {
    this.nodeId = nodeId;
    this.startPeers = Map.copyOf(startPeers);
    this.applied = Map.copyOf(startPeers);
    this.wasMember = !joining;
  }

  /** A fixed view of {@code peers}: for clients, which follow no configuration. */
  static MembershipView fixed(Map<String, InetSocketAddress> peers) {
    return new MembershipView("", peers, false);
  }

  /**
   * Reads the configuration Ratis holds from now on, and takes the one in storage (at start) as the
   * newest applied.
   */
  synchronized void attach(Supplier<Optional<RaftConfiguration>> liveConf) {
    this.live = liveConf;
    liveConf
        .get()
        .filter(c -> !c.getAllPeers().isEmpty())
        .ifPresent(c -> take(c.getLogEntryIndex(), addresses(c.getAllPeers())));
  }

  /**
   * A configuration entry was applied at {@code index}; older ones (replayed after a restart) are
   * ignored. Returns true if it removed this node.
   */
  synchronized boolean applied(long index, RaftConfigurationProto conf) {
    if (index <= appliedIndex) {
      return false;
    }
    Map<String, InetSocketAddress> peers = new LinkedHashMap<>();
    for (RaftPeerProto p : conf.getPeersList()) {
      peers.put(p.getId().toStringUtf8(), address(p.getAddress()));
    }
    for (RaftPeerProto p : conf.getOldPeersList()) {
      peers.putIfAbsent(p.getId().toStringUtf8(), address(p.getAddress()));
    }
    return take(index, peers);
  }

  private boolean take(long index, Map<String, InetSocketAddress> peers) {
    appliedIndex = index;
    applied = Map.copyOf(peers);
    peers.keySet().forEach(expected::remove);
    if (peers.containsKey(nodeId)) {
      wasMember = true;
      return false;
    }
    if (wasMember && !removed) {
      removed = true;
      return true;
    }
    return false;
  }

  /** The leader is adding {@code id} at {@code address}: accept it before any conf names it. */
  void expect(String id, InetSocketAddress address) {
    expected.put(id, address);
  }

  /** The addition of {@code id} ended (the conf names it now, or it failed). */
  void unexpect(String id) {
    expected.remove(id);
  }

  /** Whether this node has been in a configuration it applied (or found in its storage). */
  boolean wasMember() {
    return wasMember;
  }

  /** Whether a newer configuration no longer names this node, which was a member before. */
  boolean removed() {
    return removed;
  }

  /** Whether {@code id} is a member (see the class comment). */
  boolean isMember(String id) {
    return addressOf(id).isPresent();
  }

  /** The address of the member {@code id}, if it is one. */
  Optional<InetSocketAddress> addressOf(String id) {
    InetSocketAddress a = applied.get(id);
    if (a == null) {
      a = expected.get(id);
    }
    if (a == null) {
      a = live.get().map(c -> addresses(c.getAllPeers()).get(id)).orElse(null);
    }
    if (a == null && !wasMember) {
      a = startPeers.get(id);
    }
    return Optional.ofNullable(a);
  }

  /** The member that lives at {@code host:port}, if any. */
  Optional<String> memberAt(String host, int port) {
    String key = key(host, port);
    for (Map.Entry<String, InetSocketAddress> e : known().entrySet()) {
      if (key(e.getValue().getHostString(), e.getValue().getPort()).equals(key)) {
        return Optional.of(e.getKey());
      }
    }
    return Optional.empty();
  }

  /** Every member's address, as the class comment counts them, by id. */
  Map<String, InetSocketAddress> known() {
    Map<String, InetSocketAddress> all = new LinkedHashMap<>();
    if (!wasMember) {
      all.putAll(startPeers);
    }
    live.get().ifPresent(c -> all.putAll(addresses(c.getAllPeers())));
    all.putAll(expected);
    all.putAll(applied);
    return all;
  }

  /** The ids of {@link #known}, sorted, for messages. */
  Set<String> knownIds() {
    return new TreeSet<>(known().keySet());
  }

  /** The members of the newest applied configuration, by id. */
  Map<String, InetSocketAddress> appliedMembers() {
    return applied;
  }

  static Map<String, InetSocketAddress> addresses(Collection<RaftPeer> peers) {
    Map<String, InetSocketAddress> out = new LinkedHashMap<>();
    for (RaftPeer p : peers) {
      out.put(p.getId().toString(), address(p.getAddress()));
    }
    return out;
  }

  /** {@code host:port} as an unresolved address. */
  static InetSocketAddress address(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    return InetSocketAddress.createUnresolved(
        hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
  }

  private static String key(String host, int port) {
    return String.valueOf(host).toLowerCase(Locale.ROOT) + ":" + port;
  }
}
