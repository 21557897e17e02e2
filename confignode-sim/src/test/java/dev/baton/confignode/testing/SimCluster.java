package dev.baton.confignode.testing;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.admin.AdminApiSettings;
import dev.baton.confignode.auth.Role;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.datanode.DataNodeClient;
import dev.baton.confignode.datanode.DataNodeConfig;
import dev.baton.confignode.datanode.DataNodeGuard;
import dev.baton.confignode.datanode.DataNodeServer;
import dev.baton.confignode.datanode.DataNodeState;
import dev.baton.confignode.datanode.LedgerEntry;
import dev.baton.confignode.datanode.RegionReplica;
import dev.baton.confignode.datanode.RegionRole;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.meta.ClusterMetadata;
import dev.baton.confignode.node.ConfigNodeServer;
import dev.baton.confignode.node.RaftAccess;
import dev.baton.confignode.procedures.ProcedureLimits;
import dev.baton.consensus.LeaderContext;
import dev.baton.consensus.NodeRole;
import dev.baton.consensus.RaftSettings;
import dev.baton.consensus.spi.LoopbackPorts;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionFactory;

/**
 * An in-process ConfigNode cluster for tests: {@code configNodes} {@link ConfigNodeServer}s (real
 * Ratis over gRPC and the HTTP admin API on 127.0.0.1, free ports) and {@code dataNodes} in-process
 * {@link DataNodeServer}s with ids 1..n, registered at start through the servers' {@code
 * --datanodes} path. Also the invariant checks the procedure tests share.
 */
public final class SimCluster implements AutoCloseable {
  /** Generous bound for elections, recoveries and procedures on a busy 2-core machine. */
  public static final Duration WAIT = Duration.ofSeconds(60);

  /** How often the waits below look again; short, since each look is cheap. */
  public static final Duration POLL = Duration.ofMillis(25);

  /** A wait bounded by {@link #WAIT} that looks at once and then every {@link #POLL}. */
  public static ConditionFactory waiting() {
    return await().atMost(WAIT).pollDelay(Duration.ZERO).pollInterval(POLL);
  }

  /**
   * Election timeouts above the defaults, so a heavily loaded machine (other builds running on few
   * cores) elects no spurious leader in the middle of a test; not much higher, since a linearizable
   * read on the leader waits for the next heartbeat (sent every half minimum election timeout); a
   * request timeout above the admin API's own wait.
   */
  public static final RaftSettings RAFT =
      RaftSettings.defaults()
          .withElectionTimeouts(Duration.ofMillis(1200), Duration.ofMillis(2400))
          .withRequestTimeout(Duration.ofSeconds(20));

  /** Nonce group of {@link #submit}: its retries after a 5xx are safe. */
  public static final long NONCE_GROUP = 4242;

  private final AtomicLong nonces = new AtomicLong();

  private final Path dir;
  private final Map<String, InetSocketAddress> peers = new LinkedHashMap<>();
  private final Map<String, ConfigNodeServer> nodes = new LinkedHashMap<>();
  private final Map<Integer, DataNodeServer> dataNodes = new TreeMap<>();
  private NodeApiClient api;

  private SimCluster(Path dir) {
    this.dir = dir;
  }

  /** Starts the DataNodes, then the ConfigNodes, and waits until every DataNode is registered. */
  public static SimCluster start(Path dir, int configNodes, int dataNodes) throws IOException {
    return start(dir, configNodes, dataNodes, false);
  }

  /** As {@link #start(Path, int, int)}; {@code faults} turns every ConfigNode's fault routes on. */
  public static SimCluster start(Path dir, int configNodes, int dataNodes, boolean faults)
      throws IOException {
    return start(dir, configNodes, dataNodes, faults, ProcedureLimits.DEFAULTS);
  }

  /** As {@link #start(Path, int, int, boolean)}, every ConfigNode with {@code limits}. */
  public static SimCluster start(
      Path dir, int configNodes, int dataNodes, boolean faults, ProcedureLimits limits)
      throws IOException {
    return start(
        dir,
        configNodes,
        dataNodes,
        faults,
        limits,
        AdminApiSettings.LOOPBACK,
        null,
        ConfigNodeServer.Config.DEFAULT_BREAK_DEADLOCKS);
  }

  /**
   * As {@link #start(Path, int, int)}, every ConfigNode requiring the tokens of {@link TestTokens};
   * the cluster's own client sends the admin's.
   */
  public static SimCluster startWithTokens(Path dir, int configNodes, int dataNodes)
      throws IOException {
    return startWithTokens(
        dir, configNodes, dataNodes, ConfigNodeServer.Config.DEFAULT_BREAK_DEADLOCKS);
  }

  /**
   * As {@link #startWithTokens(Path, int, int)}; {@code breakDeadlocks} false leaves a wait-for
   * cycle of locks standing (only logged, counted and listed).
   */
  public static SimCluster startWithTokens(
      Path dir, int configNodes, int dataNodes, boolean breakDeadlocks) throws IOException {
    return start(
        dir,
        configNodes,
        dataNodes,
        false,
        ProcedureLimits.DEFAULTS,
        AdminApiSettings.LOOPBACK.withTokens(TestTokens.write(dir)),
        TestTokens.TOKENS.get(Role.ADMIN),
        breakDeadlocks);
  }

  /**
   * As {@link #start(Path, int, int, boolean, ProcedureLimits)}, every ConfigNode's admin API as
   * {@code api} says; the cluster's own client ({@link #api()}) sends {@code token} (null: none);
   * {@code breakDeadlocks} false leaves a wait-for cycle of locks standing (only logged, counted
   * and listed).
   */
  public static SimCluster start(
      Path dir,
      int configNodes,
      int dataNodes,
      boolean faults,
      ProcedureLimits limits,
      AdminApiSettings api,
      String token,
      boolean breakDeadlocks)
      throws IOException {
    SimCluster c = new SimCluster(dir);
    try {
      for (int i = 1; i <= dataNodes; i++) {
        c.startDataNode(i);
      }
      for (int i = 1; i <= configNodes; i++) {
        c.peers.put("cn" + i, new InetSocketAddress("127.0.0.1", LoopbackPorts.free()));
      }
      List<String> addresses = c.dataNodes.values().stream().map(DataNodeServer::address).toList();
      for (String id : c.peers.keySet()) {
        ConfigNodeServer server =
            new ConfigNodeServer(
                new ConfigNodeServer.Config(
                    id,
                    c.peers,
                    dir.resolve(id),
                    0,
                    addresses,
                    RAFT,
                    faults,
                    List.of(),
                    limits,
                    api,
                    RaftAccess.LOOPBACK,
                    breakDeadlocks));
        server.start();
        c.nodes.put(id, server);
      }
      NodeApiClient client =
          new NodeApiClient(c.nodes.values().stream().map(SimCluster::http).toList());
      c.api = token == null ? client : client.withToken(token);
      c.leader();
      waiting().until(() -> c.localMetadata(c.leader()).dataNodes().size() == dataNodes);
      return c;
    } catch (IOException | RuntimeException | Error e) {
      c.close();
      throw e;
    }
  }

  /** Starts an in-process DataNode with this id in its own directory; not registered. */
  public DataNodeServer startDataNode(int id) throws IOException {
    DataNodeServer dn =
        new DataNodeServer(
                DataNodeConfig.of(id, dir.resolve("dn" + id + "-" + dataNodes.size()))
                    .withGuard(DataNodeGuard.PLAIN.withFaults(true)))
            .start();
    dataNodes.put(id, dn);
    return dn;
  }

  public static String http(ConfigNodeServer server) {
    return "127.0.0.1:" + server.httpPort();
  }

  public List<ConfigNodeServer> nodes() {
    return new ArrayList<>(nodes.values());
  }

  /** Waits for the node whose executor runs. */
  public ConfigNodeServer leader() {
    return waiting()
        .until(
            () ->
                nodes.values().stream()
                    .filter(n -> n.node().isLeader() && n.node().role() == NodeRole.LEADER_RUNNING)
                    .findFirst(),
            Optional::isPresent)
        .get();
  }

  /** Closes one ConfigNode for good; the others elect a leader among themselves. */
  public void stopNode(ConfigNodeServer node) {
    node.close();
    nodes.values().remove(node);
  }

  public ConfigNodeServer follower() {
    ConfigNodeServer leader = leader();
    return nodes.values().stream().filter(n -> n != leader).findFirst().orElseThrow();
  }

  /** The running leader's fencing context (its term). */
  public LeaderContext leaderContext() {
    return leader().node().leaderContext().orElseThrow();
  }

  public NodeApiClient api() {
    return api;
  }

  public DataNodeClient dataNode(int id) {
    return new DataNodeClient(dataNodes.get(id).address());
  }

  public DataNodeServer dataNodeServer(int id) {
    return dataNodes.get(id);
  }

  public Set<Integer> dataNodeIds() {
    return dataNodes.keySet();
  }

  /**
   * Submits through the admin API of some node, with a fresh nonce, retrying while the cluster
   * answers 5xx (a busy machine can make one request time out); returns the procId.
   */
  public long submit(String type, Object... args) {
    long nonce = nonces.incrementAndGet();
    JsonNode a = args(args);
    return retrying(
        () -> {
          try {
            return api.submit(type, a, NONCE_GROUP, nonce);
          } catch (NodeApiClient.ApiException e) {
            if (e.status() != 0 && e.status() < 500) {
              throw new AssertionError("submission of " + type + " " + a + " refused: " + e, e);
            }
            throw e;
          }
        });
  }

  /**
   * The value of {@code call} once it returns without an exception: for reads and idempotent calls
   * that may time out on a loaded machine. An AssertionError ends the wait at once.
   */
  public static <T> T retrying(Callable<T> call) {
    AtomicReference<T> out = new AtomicReference<>();
    waiting()
        .ignoreExceptionsMatching(e -> !(e instanceof AssertionError))
        .until(
            () -> {
              out.set(call.call());
              return true;
            });
    return out.get();
  }

  public static JsonNode args(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return Json.LENIENT.valueToTree(m);
  }

  /** A linearizable read of a procedure through the leader. */
  public Optional<ProcedureInfo> info(long procId) {
    return retrying(() -> leader().node().getInfo(procId).get(WAIT.toSeconds(), TimeUnit.SECONDS));
  }

  public List<ProcedureInfo> list() {
    return retrying(() -> leader().node().list().get(WAIT.toSeconds(), TimeUnit.SECONDS));
  }

  /** Waits until the procedure is terminal; returns its final info. */
  public ProcedureInfo awaitFinished(long procId) {
    return waiting()
        .ignoreExceptions()
        .until(() -> info(procId).filter(ProcedureInfo::finished), Optional::isPresent)
        .get();
  }

  public ProcedureInfo awaitSuccess(long procId) {
    ProcedureInfo info = awaitFinished(procId);
    assertEquals(ProcedureState.SUCCESS, info.state(), () -> "failure: " + info.failure());
    return info;
  }

  public ProcedureInfo awaitRolledBack(long procId) {
    ProcedureInfo info = awaitFinished(procId);
    assertEquals(ProcedureState.ROLLEDBACK, info.state(), () -> "procedure " + info);
    return info;
  }

  /** Children (direct) of a procedure. */
  public List<ProcedureInfo> children(long procId) {
    return list().stream().filter(i -> i.parentProcId() == procId).toList();
  }

  /** A linearizable read of the metadata through the leader. */
  public ClusterMetadata.View metadata() {
    return new ClusterMetadata.View(
        retrying(
            () -> leader().node().metadata().read("").get(WAIT.toSeconds(), TimeUnit.SECONDS)));
  }

  public ClusterMetadata.View localMetadata(ConfigNodeServer node) {
    return new ClusterMetadata.View(node.node().metadata().local(""));
  }

  /** Every ConfigNode eventually applies the same metadata as the leader's linearizable read. */
  public void awaitMetadataReplicated() throws Exception {
    Map<String, String> want = text(metadata());
    for (ConfigNodeServer n : nodes.values()) {
      waiting()
          .atMost(WAIT)
          .untilAsserted(
              () -> assertEquals(want, text(localMetadata(n)), "metadata of " + n.node().nodeId()));
    }
  }

  private static Map<String, String> text(ClusterMetadata.View v) {
    Map<String, String> out = new TreeMap<>();
    // the leader's admin address is not ConfigNode state, and a new term rewrites it any time
    v.entries().entrySet().stream()
        .filter(e -> !e.getKey().equals(ClusterMetadata.LEADER_ADMIN))
        .forEach(
            e ->
                out.put(
                    e.getKey(), new String(e.getValue(), java.nio.charset.StandardCharsets.UTF_8)));
    return out;
  }

  /**
   * The region tables of every running DataNode equal the metadata: each DataNode hosts exactly the
   * replicas the metadata places there, with the metadata's database and kind, LEADER exactly on
   * the region's leader.
   */
  public void assertDataNodesMatchMetadata() throws Exception {
    ClusterMetadata.View meta = metadata();
    Map<Integer, Map<Integer, ClusterMetadata.Region>> expected = new HashMap<>();
    for (ClusterMetadata.Region r : meta.regions()) {
      assertTrue(r.replicas().contains(r.leader()), "leader among replicas: " + r);
      assertEquals(r.replicas().size(), Set.copyOf(r.replicas()).size(), "distinct replicas: " + r);
      for (int dn : r.replicas()) {
        expected.computeIfAbsent(dn, k -> new HashMap<>()).put(r.id(), r);
      }
    }
    for (Map.Entry<Integer, DataNodeServer> e : dataNodes.entrySet()) {
      DataNodeState s = e.getValue().state();
      Map<Integer, ClusterMetadata.Region> want = expected.getOrDefault(s.id(), Map.of());
      assertEquals(
          new java.util.TreeSet<>(want.keySet()),
          s.regions().stream()
              .map(RegionReplica::regionId)
              .collect(Collectors.toCollection(java.util.TreeSet::new)),
          "regions hosted by DataNode " + s.id());
      for (RegionReplica replica : s.regions()) {
        ClusterMetadata.Region r = want.get(replica.regionId());
        assertEquals(r.database(), replica.database(), "database of " + replica);
        assertEquals(r.kind(), replica.kind(), "kind of " + replica);
        assertEquals(
            r.leader() == s.id() ? RegionRole.LEADER : RegionRole.FOLLOWER,
            replica.role(),
            "role of region " + r.id() + " on DataNode " + s.id() + " (metadata " + r + ")");
      }
    }
  }

  /** Ledger entries of the given procedures on every DataNode. */
  public List<LedgerEntry> ledger(Set<Long> procIds) {
    List<LedgerEntry> out = new ArrayList<>();
    for (DataNodeServer dn : dataNodes.values()) {
      for (LedgerEntry e : dn.state().ledger()) {
        if (procIds.contains(e.procId())) {
          out.add(e);
        }
      }
    }
    return out;
  }

  /**
   * Every DataNode command of these procedures carried the term of the leader that ran them: {@code
   * term}, the leader's term when the test started them; and each DataNode's highest term is that
   * term too. Should an election have happened meanwhile (the leader's term is no longer {@code
   * term}), the commands may carry any term from {@code term} to the current one, no other.
   */
  public void assertCommandsCarry(long term, Set<Long> procIds) {
    long now = leaderContext().term();
    List<LedgerEntry> entries = ledger(procIds);
    assertFalse(entries.isEmpty(), "procedures " + procIds + " sent no DataNode command");
    for (LedgerEntry e : entries) {
      String what = "term of " + e.command() + " " + e.step() + " of procedure " + e.procId();
      if (now == term) {
        assertEquals(term, e.term(), what);
      } else {
        assertTrue(e.term() >= term && e.term() <= now, what + ": " + e.term());
      }
    }
    for (DataNodeServer dn : dataNodes.values()) {
      long highest = dn.state().highestTerm();
      String what = "highest term of DataNode " + dn.id();
      if (now == term) {
        assertEquals(term, highest, what);
      } else {
        assertTrue(highest >= term && highest <= now, what + ": " + highest);
      }
    }
  }

  /** Clears injected faults on every running DataNode. */
  public void resetFaults() throws Exception {
    for (int id : dataNodes.keySet()) {
      dataNode(id).resetFaults();
    }
  }

  @Override
  public void close() {
    for (ConfigNodeServer n : nodes.values()) {
      n.close();
    }
    nodes.clear();
    for (DataNodeServer dn : dataNodes.values()) {
      dn.close();
    }
    dataNodes.clear();
  }
}
