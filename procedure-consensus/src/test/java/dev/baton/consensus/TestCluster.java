package dev.baton.consensus;

import static org.awaitility.Awaitility.await;

import dev.baton.consensus.spi.LoopbackPorts;
import dev.baton.procedure.NonceKey;
import dev.baton.procedure.Procedure;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.awaitility.core.ConditionTimeoutException;

/**
 * An in-process procedure cluster for tests: real Ratis servers over gRPC on 127.0.0.1, each with
 * its own storage directory; nodes can be closed (a crash: no clean shutdown path) and restarted on
 * the same directory and port.
 */
final class TestCluster implements AutoCloseable {
  /** Generous bound for elections and recoveries on a busy 2-core machine. */
  static final Duration ELECTION_WAIT = Duration.ofSeconds(30);

  final World world = new World();
  final Map<String, InetSocketAddress> peers = new LinkedHashMap<>();
  private final Path root;
  private final UnaryOperator<ProcedureNode.Builder<Work.Env>> tuning;

  /** Running nodes; read by submitter threads of a test while the test kills and starts nodes. */
  private final Map<String, ProcedureNode<Work.Env>> nodes =
      Collections.synchronizedMap(new LinkedHashMap<>());

  TestCluster(Path root, int size) throws IOException {
    this(root, size, UnaryOperator.identity());
  }

  TestCluster(Path root, int size, UnaryOperator<ProcedureNode.Builder<Work.Env>> tuning)
      throws IOException {
    this.root = root;
    this.tuning = tuning;
    for (int i = 1; i <= size; i++) {
      peers.put("n" + i, new InetSocketAddress("127.0.0.1", LoopbackPorts.free()));
    }
  }

  TestCluster startAll() throws IOException {
    for (String id : peers.keySet()) {
      start(id);
    }
    return this;
  }

  ProcedureNode<Work.Env> start(String id) throws IOException {
    return start(id, UnaryOperator.identity());
  }

  /** As {@link #start(String)}, with {@code extra} settings for this node only (TLS, join). */
  ProcedureNode<Work.Env> start(String id, UnaryOperator<ProcedureNode.Builder<Work.Env>> extra)
      throws IOException {
    ProcedureNode.Builder<Work.Env> b =
        ProcedureNode.<Work.Env>builder()
            .nodeId(id)
            .peers(peers)
            .storageDir(root.resolve(id))
            .registry(Work.registry())
            .environment(
                leader -> {
                  world.enterRecovery(leader);
                  return new Work.Env(world, leader);
                })
            .coreWorkers(4);
    ProcedureNode<Work.Env> node = extra.apply(tuning.apply(b)).build();
    node.start();
    nodes.put(id, node);
    return node;
  }

  /**
   * Gives a new peer {@code id} a free port; the nodes started from now on know it (a node joining
   * the cluster is started with every member's address and its own).
   */
  InetSocketAddress addPeer(String id) throws IOException {
    InetSocketAddress a = new InetSocketAddress("127.0.0.1", LoopbackPorts.free());
    peers.put(id, a);
    return a;
  }

  /** Closes a node abruptly (its executor stops, the Raft server closes). */
  void kill(String id) {
    ProcedureNode<Work.Env> n = nodes.remove(id);
    if (n != null) {
      n.close();
    }
  }

  /** Closes every node (a whole-cluster outage). */
  void killAll() {
    for (String id : ids()) {
      kill(id);
    }
  }

  /** The storage directory of a node. */
  Path storageDir(String id) {
    return root.resolve(id);
  }

  /** The directory of the state machine's snapshots in a node's storage. */
  Path snapshotDir(String id) {
    return storageDir(id)
        .resolve(ProcedureGroup.groupId(ProcedureNode.DEFAULT_CLUSTER_ID).getUuid().toString())
        .resolve("sm");
  }

  /** The directory of the Raft log segments in a node's storage. */
  Path logDir(String id) {
    return storageDir(id)
        .resolve(ProcedureGroup.groupId(ProcedureNode.DEFAULT_CLUSTER_ID).getUuid().toString())
        .resolve("current");
  }

  /** A Ratis client of the cluster, for admin calls (leadership transfer, snapshots). */
  RaftClient raftClient() {
    return RaftClient.newBuilder()
        .setRaftGroup(ProcedureGroup.of(ProcedureNode.DEFAULT_CLUSTER_ID, peers))
        .setProperties(new RaftProperties())
        .build();
  }

  /**
   * Waits until every running node applied the same procedure table (same records, byte for byte),
   * i.e. the followers caught up with the leader.
   */
  void awaitSameTables() {
    diagnosed(
        "no equal tables on the running nodes",
        () -> {
          await()
              .atMost(ELECTION_WAIT)
              .until(
                  () -> {
                    Map<Long, byte[]> first = null;
                    for (ProcedureNode<Work.Env> n : running()) {
                      Map<Long, byte[]> t = n.stateMachine().table().copy();
                      if (first == null) {
                        first = t;
                      } else if (!sameRecords(first, t)) {
                        return false;
                      }
                    }
                    return true;
                  });
          return true;
        });
  }

  private static boolean sameRecords(Map<Long, byte[]> a, Map<Long, byte[]> b) {
    if (!a.keySet().equals(b.keySet())) {
      return false;
    }
    for (Map.Entry<Long, byte[]> e : a.entrySet()) {
      if (!Arrays.equals(e.getValue(), b.get(e.getKey()))) {
        return false;
      }
    }
    return true;
  }

  private List<String> ids() {
    synchronized (nodes) {
      return new ArrayList<>(nodes.keySet());
    }
  }

  ProcedureNode<Work.Env> node(String id) {
    return nodes.get(id);
  }

  private Map<String, ProcedureNode<Work.Env>> runningById() {
    synchronized (nodes) {
      return Map.copyOf(nodes);
    }
  }

  List<ProcedureNode<Work.Env>> running() {
    synchronized (nodes) {
      return new ArrayList<>(nodes.values());
    }
  }

  /** Waits for a leader whose executor runs; returns it. */
  ProcedureNode<Work.Env> awaitRunningLeader() {
    return diagnosed(
            "no running leader",
            () -> await().atMost(ELECTION_WAIT).until(this::runningLeader, Optional::isPresent))
        .get();
  }

  Optional<ProcedureNode<Work.Env>> runningLeader() {
    for (ProcedureNode<Work.Env> n : running()) {
      if (n.role() == NodeRole.LEADER_RUNNING && n.isLeader()) {
        return Optional.of(n);
      }
    }
    return Optional.empty();
  }

  ProcedureNode<Work.Env> follower() {
    ProcedureNode<Work.Env> leader = awaitRunningLeader();
    for (ProcedureNode<Work.Env> n : running()) {
      if (n != leader) {
        return n;
      }
    }
    throw new IllegalStateException("no follower running");
  }

  /**
   * Runs a wait of the cluster; if it times out, fails with what is awaited, every node's state and
   * the nodes' thread stacks at that moment (also printed, so they sit beside the nodes' log
   * lines).
   */
  <T> T diagnosed(String what, Supplier<T> wait) {
    try {
      return wait.get();
    } catch (ConditionTimeoutException e) {
      String report =
          Instant.now()
              + " "
              + what
              + " within "
              + ELECTION_WAIT
              + "\nnodes:\n"
              + ClusterDiagnostics.nodes(peers.keySet(), runningById())
              + "threads:\n"
              + ClusterDiagnostics.threads(peers.keySet());
      System.err.println(report);
      throw new AssertionError(report, e);
    }
  }

  @Override
  public void close() {
    killAll();
  }

  /**
   * Submits with a nonce, again and again until a call succeeds, as a client that lost an answer
   * would: the nonce makes the retries one procedure.
   */
  static long submitRetrying(
      ProcedureNode<Work.Env> node, Supplier<Procedure<Work.Env>> proc, NonceKey nonce) {
    return await()
        .atMost(ELECTION_WAIT)
        .ignoreExceptionsInstanceOf(ExecutionException.class)
        .until(() -> node.submit(proc.get(), nonce).get(), id -> id > 0);
  }
}
