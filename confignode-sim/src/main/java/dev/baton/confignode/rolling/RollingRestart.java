package dev.baton.confignode.rolling;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.waits.ConfigNodeWaits;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restarts every ConfigNode of a running cluster, one at a time, through a {@link RestartHook}: the
 * followers first, in the order their addresses are given, then the leader of the moment, after it
 * handed its leadership to the live member furthest in the log ({@code POST
 * /api/membership/transfer-leadership}), so the executor moves once, by a transfer rather than an
 * election timeout; a hand-over that ends with the old leader elected again is asked again. After
 * each restart it waits until a new process of the node answers (another start time than before)
 * and has applied what the leader had committed once it was back, and only then goes on: at most
 * one member is down at any time, so a group of three or more keeps its majority. Every member must
 * answer at the start and be listed, or nothing is restarted. Talks only to the nodes' admin APIs
 * (the caller's client: its token and TLS).
 */
public final class RollingRestart {
  static final String TRANSFER_PATH = "/api/membership/transfer-leadership";

  /** Transfers asked of the last node before the rolling restart gives up on handing over. */
  static final int HAND_OVER_TRIES = 3;

  private static final Logger LOG = LoggerFactory.getLogger(RollingRestart.class);

  private static final String LEADER_RUNNING = "LEADER_RUNNING";

  private final NodeApiClient api;
  private final List<String> addresses;
  private final RestartHook hook;
  private final Duration nodeTimeout;
  private final Consumer<NodeRestart> progress;

  /**
   * @param api a client of the nodes' admin APIs (one per address is asked through it)
   * @param addresses every member's admin API host:port
   * @param hook what restarts one node
   * @param nodeTimeout how long one node may take to hand leadership over, come back and catch up
   * @param progress hears each node's restart once it is back and caught up
   */
  public RollingRestart(
      NodeApiClient api,
      List<String> addresses,
      RestartHook hook,
      Duration nodeTimeout,
      Consumer<NodeRestart> progress) {
    if (addresses.isEmpty()) {
      throw new IllegalArgumentException("no ConfigNode address given");
    }
    this.api = api;
    this.addresses = List.copyOf(addresses);
    this.hook = hook;
    this.nodeTimeout = nodeTimeout;
    this.progress = progress;
  }

  /**
   * Restarts every node; returns how each went, in the order restarted.
   *
   * @throws IllegalStateException if a node does not answer at the start, or the addresses are not
   *     exactly the group's members (nothing restarted)
   * @throws NodeNotBackException if a node's restart failed or it was not back and caught up within
   *     the node timeout (the nodes after it not restarted)
   * @throws IOException if the leader refused to hand its leadership over
   */
  public List<NodeRestart> run() throws IOException, InterruptedException {
    Map<String, NodeProcess> nodes = survey();
    checkMembers(nodes, awaitRunningLeader(Set.of(), ""));
    List<String> pending = new ArrayList<>(nodes.keySet());
    List<NodeRestart> done = new ArrayList<>();
    while (!pending.isEmpty()) {
      String leader = awaitRunningLeader(Set.of(), "");
      Optional<String> follower = pending.stream().filter(id -> !id.equals(leader)).findFirst();
      NodeRestart r;
      if (follower.isPresent()) {
        r = restart(nodes.get(follower.get()), nodes.get(leader), Optional.empty(), 0, pending);
      } else {
        NodeProcess old = nodes.get(leader);
        long start = System.nanoTime();
        String to = handOverUntilMoved(old);
        String next = awaitRunningLeader(Set.of(leader), leader);
        r = restart(old, nodes.get(next), Optional.of(to), millisSince(start), pending);
      }
      pending.remove(r.id());
      progress.accept(r);
      done.add(r);
    }
    return done;
  }

  /** Every address's node and process; each must answer now. */
  private Map<String, NodeProcess> survey() throws IOException, InterruptedException {
    Map<String, NodeProcess> nodes = new LinkedHashMap<>();
    for (String address : addresses) {
      JsonNode c;
      try {
        c = api.cluster(address);
      } catch (NodeApiClient.ApiException e) {
        throw new IllegalStateException(
            "ConfigNode "
                + address
                + " does not answer ("
                + e.getMessage()
                + "): a rolling restart needs every member up; nothing was restarted",
            e);
      }
      NodeProcess p =
          new NodeProcess(
              c.path("nodeId").asText(),
              address,
              c.path("pid").asLong(),
              c.path("startedAtMillis").asLong());
      if (nodes.put(p.id(), p) != null) {
        throw new IllegalStateException(
            "ConfigNode " + p.id() + " is listed twice (" + address + "); nothing was restarted");
      }
    }
    return nodes;
  }

  /** The addresses must be exactly the group's members, as the leader lists them. */
  private void checkMembers(Map<String, NodeProcess> nodes, String leader)
      throws IOException, InterruptedException {
    Set<String> members = new TreeSet<>();
    for (JsonNode m : api.cluster(nodes.get(leader).address()).path("members")) {
      members.add(m.path("id").asText());
    }
    if (!members.equals(new TreeSet<>(nodes.keySet()))) {
      throw new IllegalStateException(
          "the addresses given reach "
              + new TreeSet<>(nodes.keySet())
              + " but the group's members are "
              + members
              + ": list every member's admin API address, and only theirs; nothing was restarted");
    }
  }

  /**
   * Restarts {@code node} and waits until it is back and has applied what {@code leader} had
   * committed when it was back.
   */
  private NodeRestart restart(
      NodeProcess node,
      NodeProcess leader,
      Optional<String> handedTo,
      long handOverMillis,
      List<String> notYet)
      throws IOException, InterruptedException {
    long start = System.nanoTime();
    try {
      hook.restart(node);
    } catch (IOException e) {
      throw notBack(node, e.getMessage(), notYet, e);
    }
    long deadline = start + nodeTimeout.toNanos();
    try {
      ConfigNodeWaits.clusterPoll(left(deadline), node.id() + " back (a new process answering)")
          .untilTrue(
              () ->
                  api.cluster(node.address()).path("startedAtMillis").asLong()
                      != node.startedAtMillis());
    } catch (IOException e) {
      throw notBack(
          node,
          node.id() + " did not come back within " + nodeTimeout.toSeconds() + " s",
          notYet,
          e);
    }
    long downMillis = millisSince(start);
    long back = System.nanoTime();
    // What the leader has committed now that the node is back (its commit index only grows, so
    // this covers the restart's start too): a node that restarts with the log it had may hold an
    // older index without the leader's appender reaching it yet, and restarting the next member
    // then would leave the leader without a majority that follows it (it steps down and an
    // election picks the next leader).
    long caughtUp = api.cluster(leader.address()).path("commitIndex").asLong();
    try {
      ConfigNodeWaits.clusterPoll(left(deadline), node.id() + " applied index " + caughtUp)
          .untilTrue(() -> api.cluster(node.address()).path("appliedIndex").asLong() >= caughtUp);
    } catch (IOException e) {
      throw notBack(
          node,
          node.id()
              + " came back but did not catch up to index "
              + caughtUp
              + " within "
              + nodeTimeout.toSeconds()
              + " s",
          notYet,
          e);
    }
    return new NodeRestart(
        node.id(), handedTo, handOverMillis, downMillis, millisSince(back), caughtUp);
  }

  private static NodeNotBackException notBack(
      NodeProcess node, String why, List<String> notYet, Exception cause) {
    List<String> after = new ArrayList<>(notYet);
    after.remove(node.id());
    return new NodeNotBackException(
        node.id(),
        why
            + (after.isEmpty() ? "" : "; not restarted: " + after)
            + (cause.getMessage() == null || why.contains(cause.getMessage())
                ? ""
                : " (" + cause.getMessage() + ")"),
        cause);
  }

  /**
   * Hands {@code leader}'s leadership over ({@link #handOver}), again while a refused transfer left
   * it the running leader, at most {@link #HAND_OVER_TRIES} times. A transfer can end with the old
   * leader elected again: the member it picked was restarted seconds earlier and, just caught up,
   * may send nothing for longer than an election timeout after it won (its cold JVM, a collection
   * pause), so the old leader, now a follower, stands and wins the next term with the third
   * member's vote. Returns the member asked last, or the leader elected instead if the leadership
   * moved anyway.
   *
   * @throws IOException if the last try was refused too
   */
  private String handOverUntilMoved(NodeProcess leader) throws IOException, InterruptedException {
    for (int tries = 1; ; tries++) {
      try {
        return handOver(leader);
      } catch (NodeApiClient.ApiException refused) {
        if (tries >= HAND_OVER_TRIES) {
          throw refused;
        }
        String now = awaitRunningLeader(Set.of(), "");
        if (!now.equals(leader.id())) {
          return now;
        }
        LOG.warn(
            "leader {} still leads after its hand-over was refused ({}); asking again",
            leader.id(),
            refused.getMessage());
      }
    }
  }

  /**
   * Asks {@code leader} to hand leadership to the live member furthest in its log; returns that
   * member.
   */
  private String handOver(NodeProcess leader) throws IOException, InterruptedException {
    String to = null;
    long best = -1;
    for (JsonNode m : api.cluster(leader.address()).path("members")) {
      String id = m.path("id").asText();
      long match = m.path("matchIndex").asLong();
      if (!id.equals(leader.id()) && m.path("live").asBoolean() && match > best) {
        to = id;
        best = match;
      }
    }
    if (to == null) {
      throw new IOException(
          "leader " + leader.id() + " sees no live member to hand its leadership to");
    }
    api.call(
        leader.address(), "POST", TRANSFER_PATH, Json.LENIENT.createObjectNode().put("to", to));
    return to;
  }

  /**
   * Waits for a member not in {@code exclude} that runs as leader; returns its id. {@code
   * handedOverBy} names the leader that handed over, for the error, or is empty.
   */
  private String awaitRunningLeader(Set<String> exclude, String handedOverBy)
      throws IOException, InterruptedException {
    String what =
        handedOverBy.isEmpty()
            ? "a running leader"
            : "a running leader after " + handedOverBy + " handed its leadership over";
    return ConfigNodeWaits.clusterPoll(nodeTimeout, what)
        .until(
            () -> {
              for (String address : addresses) {
                try {
                  JsonNode c = api.cluster(address);
                  String id = c.path("nodeId").asText();
                  if (!exclude.contains(id) && LEADER_RUNNING.equals(c.path("role").asText())) {
                    return id;
                  }
                } catch (NodeApiClient.ApiException down) {
                  // another node may answer
                }
              }
              return null;
            });
  }

  private static Duration left(long deadline) {
    return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
  }

  private static long millisSince(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }
}
