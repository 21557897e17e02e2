package dev.baton.consensus;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Raft group's membership as the leader runs it: who the members are and how they are doing,
 * and the changes a membership procedure makes, one member at a time: add one, remove one, hand
 * leadership to another. Every change reads the current configuration first and does nothing if it
 * already holds (a step re-run after a failover is a no-op), and is asked of Ratis as a
 * compare-and-set on that configuration, so a change made meanwhile is refused rather than
 * overwritten. A change while a previous one is still in progress (a joint configuration) waits for
 * it to end first.
 *
 * <p>An added member must already run, started with {@link ProcedureNode.Builder#join}: the leader
 * stages it (it is sent the log or a snapshot, without a vote) until it has caught up, then the
 * group moves to the new configuration through a joint one. A removed member stops by itself
 * ({@link ProcedureNode.Builder#onRemoved}). The leader cannot remove itself: hand leadership to
 * another member first ({@link #transferLeadership}).
 */
public final class Membership {
  private static final Logger LOG = LoggerFactory.getLogger(Membership.class);

  /**
   * A member counts as live while the leader heard from it within this many (maximum) election
   * timeouts: Ratis' leader itself steps down when a majority is silent for one.
   */
  static final int LIVE_WITHIN_TIMEOUTS = 3;

  /** Pause between two looks at a configuration change in progress. */
  static final Duration CHANGE_IN_PROGRESS_POLL = Duration.ofMillis(100);

  /**
   * One member as this node sees it.
   *
   * @param id its node id
   * @param address its Raft address, host:port
   * @param role {@code LEADER}, {@code FOLLOWER}, or {@code LEAVING} (only in the old side of a
   *     joint configuration)
   * @param lastContactMillis how long ago the leader last heard from it (0 for the leader itself),
   *     -1 when this node does not lead or has not heard from it
   * @param matchIndex the last log index the leader knows it holds (the leader: its own applied
   *     index), -1 when unknown
   * @param commitIndex the commit index it last reported, -1 when unknown
   * @param live whether the leader heard from it within {@value #LIVE_WITHIN_TIMEOUTS} election
   *     timeouts (the leader is live; on a follower, unknown members are not)
   */
  public record Member(
      String id,
      String address,
      String role,
      long lastContactMillis,
      long matchIndex,
      long commitIndex,
      boolean live) {}

  private final String nodeId;
  private final RaftPeer peer;
  private final MembershipView view;
  private final LongSupplier appliedIndex;
  private final long liveWithinMillis;

  Membership(
      String nodeId,
      RaftPeer peer,
      MembershipView view,
      LongSupplier appliedIndex,
      Duration electionTimeoutMax) {
    this.nodeId = nodeId;
    this.peer = peer;
    this.view = view;
    this.appliedIndex = appliedIndex;
    this.liveWithinMillis = electionTimeoutMax.multipliedBy(LIVE_WITHIN_TIMEOUTS).toMillis();
  }

  /** This node's id. */
  public String self() {
    return nodeId;
  }

  /** Whether a newer configuration no longer names this node, which was a member before. */
  public boolean removed() {
    return view.removed();
  }

  /**
   * The members of the group's current configuration (both sides of a joint one), in the order of
   * the configuration; with contact and log positions when this node leads.
   */
  public List<Member> members() {
    Optional<RaftServer.Division> d = peer.division();
    if (d.isEmpty()) {
      return List.of();
    }
    RaftServer.Division division = d.get();
    RaftConfiguration conf = division.getRaftConf();
    boolean leading = division.getInfo().isLeader();
    Map<String, Long> contact = new HashMap<>();
    Map<String, Long> match = new HashMap<>();
    if (leading) {
      RoleInfoProto role = division.getInfo().getRoleInfoProto();
      List<ServerRpcProto> followers = role.getLeaderInfo().getFollowerInfoList();
      long[] matchIndices = division.getInfo().getFollowerMatchIndices();
      for (int i = 0; i < followers.size(); i++) {
        String id = followers.get(i).getId().getId().toStringUtf8();
        contact.put(id, followers.get(i).getLastRpcElapsedTimeMs());
        // the leader lists its followers and their match indices in the same order
        if (matchIndices.length == followers.size()) {
          match.put(id, matchIndices[i]);
        }
      }
      contact.put(nodeId, 0L);
      match.put(nodeId, appliedIndex.getAsLong());
    }
    Map<String, Long> commits = new HashMap<>();
    for (CommitInfoProto c : division.getCommitInfos()) {
      commits.put(c.getServer().getId().toStringUtf8(), c.getCommitIndex());
    }
    String leaderId =
        division.getInfo().getLeaderId() == null
            ? null
            : division.getInfo().getLeaderId().toString();
    List<Member> out = new ArrayList<>();
    Collection<org.apache.ratis.protocol.RaftPeer> current = conf.getCurrentPeers();
    List<org.apache.ratis.protocol.RaftPeer> all = new ArrayList<>(current);
    for (org.apache.ratis.protocol.RaftPeer p : conf.getPreviousPeers()) {
      if (all.stream().noneMatch(q -> q.getId().equals(p.getId()))) {
        all.add(p);
      }
    }
    for (org.apache.ratis.protocol.RaftPeer p : all) {
      String id = p.getId().toString();
      String role = id.equals(leaderId) ? "LEADER" : current.contains(p) ? "FOLLOWER" : "LEAVING";
      long lastContact = contact.getOrDefault(id, -1L);
      boolean live =
          (id.equals(nodeId) && leading) || (lastContact >= 0 && lastContact <= liveWithinMillis);
      out.add(
          new Member(
              id,
              p.getAddress(),
              role,
              lastContact,
              match.getOrDefault(id, -1L),
              commits.getOrDefault(id, -1L),
              live));
    }
    return out;
  }

  /** Whether {@code id} is in the group's current configuration (either side of a joint one). */
  public boolean isMember(String id) {
    return members().stream().anyMatch(m -> m.id().equals(id));
  }

  /**
   * Adds the member {@code id} at {@code address} (a node started with {@link
   * ProcedureNode.Builder#join}) and returns once the new configuration is committed: the leader
   * stages it until it has caught up (a snapshot if the log behind it was purged), then commits a
   * joint and the new configuration. Nothing to do if the group already has it at that address.
   *
   * @param timeout how long to wait for the change in all (catch-up included)
   * @throws IllegalStateException if the group has {@code id} at another address
   * @throws IOException if this node does not lead, the new member did not catch up (Ratis gives up
   *     when it makes no progress), or the change was not done within {@code timeout}
   */
  public void add(String id, InetSocketAddress address, Duration timeout)
      throws IOException, InterruptedException {
    String hostPort = address.getHostString() + ":" + address.getPort();
    long deadline = System.nanoTime() + timeout.toNanos();
    RaftConfiguration conf = stableConfiguration(deadline);
    List<org.apache.ratis.protocol.RaftPeer> current = new ArrayList<>(conf.getCurrentPeers());
    for (org.apache.ratis.protocol.RaftPeer p : current) {
      if (p.getId().toString().equals(id)) {
        if (p.getAddress().equals(hostPort)) {
          return;
        }
        throw new IllegalStateException(
            "the group has member " + id + " at " + p.getAddress() + ", not at " + hostPort);
      }
    }
    List<org.apache.ratis.protocol.RaftPeer> next = new ArrayList<>(current);
    next.add(
        org.apache.ratis.protocol.RaftPeer.newBuilder().setId(id).setAddress(hostPort).build());
    view.expect(id, address);
    try {
      LOG.info("Node {} adds member {} at {} to {}", nodeId, id, hostPort, ids(current));
      change(current, next, "add " + id, deadline);
    } finally {
      view.unexpect(id);
    }
  }

  /**
   * Removes the member {@code id} and returns once the new configuration is committed. Nothing to
   * do if the group does not have it.
   *
   * @throws IllegalStateException if {@code id} is this node (the leader): hand leadership away
   *     first
   * @throws IOException if this node does not lead or the change was not done within {@code
   *     timeout}
   */
  public void remove(String id, Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    RaftConfiguration conf = stableConfiguration(deadline);
    List<org.apache.ratis.protocol.RaftPeer> current = new ArrayList<>(conf.getCurrentPeers());
    List<org.apache.ratis.protocol.RaftPeer> next =
        current.stream().filter(p -> !p.getId().toString().equals(id)).toList();
    if (next.size() == current.size()) {
      return;
    }
    if (id.equals(nodeId)) {
      throw new IllegalStateException(
          "the leader "
              + nodeId
              + " cannot remove itself: hand leadership to another member first");
    }
    LOG.info("Node {} removes member {} from {}", nodeId, id, ids(current));
    change(current, next, "remove " + id, deadline);
  }

  /**
   * Hands leadership to the member {@code to} and returns once it leads (Ratis waits for its
   * election). Nothing to do if this node does not lead.
   *
   * @throws IOException if the transfer was refused (the target is behind, or not a member) or not
   *     done within {@code timeout}
   */
  public void transferLeadership(String to, Duration timeout)
      throws IOException, InterruptedException {
    if (peer.division().map(d -> !d.getInfo().isLeader()).orElse(true)) {
      return;
    }
    LOG.info("Node {} hands leadership to {}", nodeId, to);
    RaftClientReply reply =
        await(
            peer.transferLeadership(RaftPeerId.valueOf(to), timeout), "transfer to " + to, timeout);
    if (!reply.isSuccess()) {
      throw new IOException(
          "node " + nodeId + " could not hand leadership to " + to + ": " + reply.getException());
    }
  }

  private void change(
      List<org.apache.ratis.protocol.RaftPeer> current,
      List<org.apache.ratis.protocol.RaftPeer> next,
      String what,
      long deadline)
      throws IOException, InterruptedException {
    SetConfigurationRequest.Arguments arguments =
        SetConfigurationRequest.Arguments.newBuilder()
            .setServersInCurrentConf(current)
            .setServersInNewConf(next)
            .setMode(SetConfigurationRequest.Mode.COMPARE_AND_SET)
            .build();
    Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    RaftClientReply reply = await(peer.setConfiguration(arguments), what, left);
    if (!reply.isSuccess()) {
      throw new IOException(
          "node "
              + nodeId
              + " could not "
              + what
              + ": "
              + (reply.getNotLeaderException() != null
                  ? "it is not the leader"
                  : String.valueOf(reply.getException())));
    }
    LOG.info("Node {}: {} done; members now {}", nodeId, what, ids(next));
  }

  /**
   * The current configuration once no change is in progress (a joint configuration, or one not yet
   * committed), as the leader holds it.
   */
  private RaftConfiguration stableConfiguration(long deadline)
      throws IOException, InterruptedException {
    while (true) {
      RaftServer.Division d =
          peer.division()
              .orElseThrow(() -> new NotLeaderException("node " + nodeId + " is not running"));
      if (!d.getInfo().isLeader()) {
        throw new NotLeaderException("node " + nodeId + " is not the leader");
      }
      RaftConfiguration conf = d.getRaftConf();
      if (conf.getPreviousPeers().isEmpty()
          && d.getRaftLog().getLastCommittedIndex() >= conf.getLogEntryIndex()) {
        return conf;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException(
            "a change of the group's configuration is still in progress: " + conf);
      }
      TimeUnit.MILLISECONDS.sleep(CHANGE_IN_PROGRESS_POLL.toMillis());
    }
  }

  private static <T> T await(CompletableFuture<T> f, String what, Duration timeout)
      throws IOException, InterruptedException {
    try {
      return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new IOException(what + " not done within " + timeout);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof IOException io
          ? io
          : new IOException(what + " failed: " + cause, cause);
    } catch (InterruptedException e) {
      f.cancel(false);
      throw e;
    }
  }

  private static List<String> ids(List<org.apache.ratis.protocol.RaftPeer> peers) {
    return peers.stream().map(p -> p.getId().toString()).toList();
  }
}
