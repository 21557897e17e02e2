package dev.baton.confignode.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.datanode.DataNodeClient;
import dev.baton.confignode.waits.ConfigNodeWaits;
import dev.baton.consensus.LoopbackPorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local cluster of ConfigNode ({@code cn1..cnN}) and DataNode ({@code 1..M}) processes of this
 * jar on loopback ports chosen free at start, their logs and data in one temp dir, for failover
 * drills, chaos, the {@code drill} and the {@code bench}, its ConfigNodes requiring tokens by
 * default ({@link ClusterTokens}; {@link #client} sends the admin's): start (all at once with
 * {@link #start}, or in stages from {@link #create}), crash (SIGKILL), freeze (SIGSTOP), thaw and
 * restart single nodes or all of them, wipe a node's data, start a new node that joins the running
 * cluster ({@link #startJoiningNode}, for membership changes); find the leader; submit procedures
 * with nonces and wait for them ({@link #procedures()}). Thread-safe. {@link #close} kills every
 * child and deletes the dir (unless kept).
 */
public final class ProcessCluster implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ProcessCluster.class);

  /**
   * How long a cluster may take to start, elect and recover: {@link ConfigNodeWaits#CLUSTER_WAIT},
   * here too for the tests that wait on a cluster.
   */
  public static final Duration CLUSTER_WAIT = ConfigNodeWaits.CLUSTER_WAIT;

  /** Every process listens on loopback. */
  private static final String LOOPBACK = "127.0.0.1:";

  private final Path dir;
  private final boolean keepDir;
  private final List<String> nodeFlags;

  private final ClusterSecurity security;

  private final Map<String, String> httpOf = new LinkedHashMap<>();

  /** Each ConfigNode's {@code --peers}: the first ones share one, an added one has its own. */
  private final Map<String, String> peersOf = new LinkedHashMap<>();

  /** Each ConfigNode's Raft address, host:port. */
  private final Map<String, String> raftOf = new LinkedHashMap<>();

  private final Map<String, ChildJvm> nodes = new LinkedHashMap<>();
  private final DataNodeProcesses dataNodes;
  private final ClusterProcedures procedures = new ClusterProcedures(this::api);
  private String peersArg;
  private NodeApiClient anyNodeClient;
  private List<String> apiTargets = List.of();
  private NodeApiClient api;
  private int restarts;

  private ProcessCluster(
      Path dir, boolean keepDir, List<String> nodeFlags, ClusterSecurity security) {
    this.dir = dir;
    this.keepDir = keepDir;
    this.nodeFlags = List.copyOf(nodeFlags);
    this.security = security;
    this.dataNodes = new DataNodeProcesses(dir);
  }

  /**
   * Starts {@code dataNodes} DataNodes and {@code nodes} ConfigNodes, and waits until a leader runs
   * and every DataNode is registered.
   */
  public static ProcessCluster start(int nodes, int dataNodes, boolean keepDir)
      throws IOException, InterruptedException {
    return start(nodes, dataNodes, keepDir, List.of());
  }

  /** As {@link #start(int, int, boolean)}, with {@code nodeFlags} added to every node command. */
  public static ProcessCluster start(
      int nodes, int dataNodes, boolean keepDir, List<String> nodeFlags)
      throws IOException, InterruptedException {
    if (nodes < 1 || dataNodes < 0) {
      throw new IllegalArgumentException(
          "need at least one ConfigNode and no negative DataNode count: "
              + nodes
              + ", "
              + dataNodes);
    }
    ProcessCluster c = create("baton-cluster", keepDir, nodeFlags);
    try {
      c.startDataNodes(dataNodes);
      c.startConfigNodes(nodes);
      c.awaitLeader(Set.of(), -1);
      ConfigNodeWaits.clusterPoll(CLUSTER_WAIT, "every DataNode registered")
          .untilTrue(() -> c.api().get("/api/metadata").get("dataNodes").size() == dataNodes);
      LOG.info(
          "cluster up in {}: nodes {}, DataNodes {}", c.dir, c.httpOf, c.dataNodes.addresses());
      return c;
    } catch (IOException | InterruptedException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /**
   * A cluster with nothing started yet, in a new temp dir named {@code prefix...}; {@code
   * nodeFlags} are added to every node command. It is secured ({@link ClusterSecurity}): its
   * ConfigNodes require tokens, serve their admin API over HTTPS and talk Raft over mutual TLS.
   * Start it with {@link #startDataNodes} and {@link #startConfigNodes}.
   */
  public static ProcessCluster create(String prefix, boolean keepDir, List<String> nodeFlags)
      throws IOException {
    return create(prefix, keepDir, nodeFlags, true);
  }

  /**
   * As {@link #create(String, boolean, List)}; without {@code secured} the ConfigNodes serve anyone
   * on loopback and talk Raft in plain text (as nodes started without {@code --tokens} and the TLS
   * flags), to compare.
   */
  public static ProcessCluster create(
      String prefix, boolean keepDir, List<String> nodeFlags, boolean secured) throws IOException {
    Path dir = Files.createTempDirectory(prefix);
    ClusterSecurity security = secured ? ClusterSecurity.secured(dir) : ClusterSecurity.none();
    return new ProcessCluster(dir, keepDir, nodeFlags, security);
  }

  /**
   * Whether the ConfigNodes require tokens, serve their admin API over HTTPS and talk Raft over
   * mutual TLS.
   */
  public boolean secured() {
    return security.on();
  }

  /**
   * Starts {@code n} more DataNodes (ids following the last one), all at once, and waits until each
   * answers.
   */
  public void startDataNodes(int n) throws IOException, InterruptedException {
    dataNodes.startNew(n);
  }

  /**
   * Starts {@code n} ConfigNodes, which register every DataNode started so far; does not wait for
   * them (see {@link #awaitLeader}). Once per cluster.
   */
  public void startConfigNodes(int n) throws IOException {
    if (peersArg != null) {
      throw new IllegalStateException("the ConfigNodes of " + dir + " are already started");
    }
    for (int i = 1; i <= n; i++) {
      String id = "cn" + i;
      raftOf.put(id, LOOPBACK + LoopbackPorts.free());
      httpOf.put(id, LOOPBACK + LoopbackPorts.free());
    }
    peersArg = peersFlag(raftOf);
    raftOf.keySet().forEach(id -> peersOf.put(id, peersArg));
    security.issueCertificates(dir, httpOf.keySet());
    anyNodeClient = client(List.copyOf(httpOf.values()));
    for (String id : httpOf.keySet()) {
      startNode(id, true);
    }
  }

  private void startNode(String id, boolean registerDataNodes) throws IOException {
    startNode(id, registerDataNodes, List.of());
  }

  private void startNode(String id, boolean registerDataNodes, List<String> extraFlags)
      throws IOException {
    List<String> args =
        new ArrayList<>(ChildJvm.nodeArgs(id, peersOf.get(id), dir.resolve(id), httpOf.get(id)));
    args.addAll(nodeFlags);
    args.addAll(extraFlags);
    args.addAll(security.nodeFlags(id));
    if (registerDataNodes && !dataNodes.ids().isEmpty()) {
      args.add("--datanodes");
      args.add(String.join(",", dataNodes.addresses()));
    }
    ChildJvm p = ChildJvm.start(id + "-" + restarts++, dir, args);
    synchronized (this) {
      nodes.put(id, p);
    }
  }

  private static String peersFlag(Map<String, String> raft) {
    StringBuilder peers = new StringBuilder();
    raft.forEach((id, a) -> peers.append(peers.length() == 0 ? "" : ",").append(id + "=" + a));
    return peers.toString();
  }

  /**
   * Starts a new ConfigNode {@code id} that joins the running cluster ({@code node --join}, its
   * {@code --peers} every ConfigNode known so far and itself), with a certificate of the cluster's
   * CA when secured; does not wait for it, nor add it to the group (an {@code AddConfigNode} does).
   *
   * @return its Raft address, host:port, for the {@code AddConfigNode}
   */
  public String startJoiningNode(String id) throws IOException {
    synchronized (this) {
      if (httpOf.containsKey(id)) {
        throw new IllegalArgumentException("the cluster has a ConfigNode " + id + " already");
      }
      raftOf.put(id, LOOPBACK + LoopbackPorts.free());
      httpOf.put(id, LOOPBACK + LoopbackPorts.free());
      peersOf.put(id, peersFlag(raftOf));
    }
    security.issueCertificate(id);
    startNode(id, false, List.of("--join"));
    return raftOf.get(id);
  }

  /** The Raft address (host:port) of a ConfigNode. */
  public String raftAddress(String nodeId) {
    return require(raftOf.get(nodeId), nodeId);
  }

  /** Deletes a ConfigNode's data directory: its disk died (kill it first). */
  public void wipeDataDir(String nodeId) throws IOException {
    if (isServing(nodeId) || isPaused(nodeId)) {
      throw new IllegalStateException(nodeId + " still runs; kill it first");
    }
    deleteTree(dir.resolve(nodeId));
  }

  /** Whether the node's last process exited (killed, or stopped by itself). */
  public synchronized boolean hasExited(String nodeId) {
    ChildJvm p = nodes.get(nodeId);
    return p != null && !p.isAlive();
  }

  public Path dir() {
    return dir;
  }

  public List<String> nodeIds() {
    return List.copyOf(httpOf.keySet());
  }

  /** ConfigNode id to the host:port of its admin API. */
  public Map<String, String> httpAddresses() {
    return Map.copyOf(httpOf);
  }

  /** host:port of a node's admin API. */
  public String http(String nodeId) {
    return require(httpOf.get(nodeId), nodeId);
  }

  public List<Integer> dataNodeIds() {
    return dataNodes.ids();
  }

  public List<String> dataNodeAddresses() {
    return dataNodes.addresses();
  }

  /** A client of DataNode {@code id} (1-based). */
  public DataNodeClient dataNode(int id) {
    return new DataNodeClient(dataNodes.address(id));
  }

  /** Whether the node's process runs and is not paused. */
  public synchronized boolean isServing(String nodeId) {
    ChildJvm p = nodes.get(nodeId);
    return p != null && p.isAlive() && !p.isPaused();
  }

  public synchronized boolean isPaused(String nodeId) {
    ChildJvm p = nodes.get(nodeId);
    return p != null && p.isPaused();
  }

  /** The nodes that run and are not paused. */
  public synchronized List<String> servingNodes() {
    return httpOf.keySet().stream().filter(this::isServing).toList();
  }

  /** A client of the serving nodes' admin APIs (a paused node would hold a request for long). */
  public synchronized NodeApiClient api() {
    List<String> serving = servingNodes().stream().map(httpOf::get).toList();
    List<String> targets = serving.isEmpty() ? List.copyOf(httpOf.values()) : serving;
    if (!targets.equals(apiTargets)) {
      apiTargets = targets;
      api = client(targets);
    }
    return api;
  }

  /**
   * A client of these admin API addresses; of a secured cluster, trusting its certificate and
   * sending the admin's token.
   */
  public NodeApiClient client(List<String> addresses) {
    return security.secure(new NodeApiClient(addresses));
  }

  /** A client of one admin API address, as {@link #client(List)}. */
  public NodeApiClient client(String address) {
    return client(List.of(address));
  }

  /** {@code GET /api/cluster} of one node. */
  public JsonNode cluster(String nodeId) throws IOException, InterruptedException {
    return anyNodeClient.cluster(http(nodeId));
  }

  /**
   * Waits for a serving node, not in {@code exclude}, that is LEADER_RUNNING in a term above {@code
   * afterTerm}; returns its id.
   */
  public String awaitLeader(Set<String> exclude, long afterTerm)
      throws IOException, InterruptedException {
    return awaitLeader(exclude, afterTerm, () -> {});
  }

  /**
   * As {@link #awaitLeader(Set, long)}; {@code termSeen} runs each time a node reports a term above
   * {@code afterTerm} with a leader not in {@code exclude} (the election, before the new executor
   * runs), for a drill that times the failover.
   */
  public String awaitLeader(Set<String> exclude, long afterTerm, Runnable termSeen)
      throws IOException, InterruptedException {
    return ConfigNodeWaits.clusterPoll(
            ConfigNodeWaits.LEADER_POLL,
            CLUSTER_WAIT,
            "a running leader" + (exclude.isEmpty() ? "" : " other than " + exclude))
        .until(() -> runningLeader(exclude, afterTerm, termSeen));
  }

  /**
   * A node running as leader of a term above {@code afterTerm}, not in {@code exclude}; or null.
   */
  private String runningLeader(Set<String> exclude, long afterTerm, Runnable termSeen)
      throws IOException, InterruptedException {
    for (String id : servingNodes()) {
      if (exclude.contains(id)) {
        continue;
      }
      try {
        JsonNode c = cluster(id);
        long term = c.path("term").asLong();
        JsonNode leaderId = c.path("leaderId");
        if (term > afterTerm
            && !leaderId.isNull()
            && !leaderId.isMissingNode()
            && !exclude.contains(leaderId.asText())) {
          termSeen.run();
        }
        if ("LEADER_RUNNING".equals(c.path("role").asText()) && term > afterTerm) {
          return id;
        }
      } catch (NodeApiClient.ApiException notUp) {
        // starting or gone
      }
    }
    return null;
  }

  /** The current running leader. */
  public String leader() throws IOException, InterruptedException {
    return awaitLeader(Set.of(), -1);
  }

  public long term(String nodeId) throws IOException, InterruptedException {
    return cluster(nodeId).get("term").asLong();
  }

  /** The output of the node's current (or last) process. */
  public Path log(String nodeId) {
    return process(nodeId).log();
  }

  /** SIGKILL one ConfigNode. */
  public void kill(String nodeId) throws InterruptedException {
    ChildJvm p = process(nodeId);
    LOG.debug("SIGKILL {} (pid {})", nodeId, p.pid());
    p.kill();
  }

  private synchronized ChildJvm process(String nodeId) {
    return require(nodes.get(nodeId), nodeId);
  }

  /** Starts a killed ConfigNode again on its data dir; does not wait for it. */
  public void restart(String nodeId) throws IOException {
    synchronized (this) {
      if (isServing(nodeId) || isPaused(nodeId)) {
        throw new IllegalStateException(nodeId + " still runs; kill it first");
      }
    }
    startNode(nodeId, false);
  }

  /** Waits until the node's admin API answers (a restarted node is back). */
  public void awaitAnswering(String nodeId) throws IOException, InterruptedException {
    ConfigNodeWaits.clusterPoll(CLUSTER_WAIT, nodeId + " answering")
        .untilTrue(() -> cluster(nodeId) != null);
  }

  /** SIGSTOP one ConfigNode. */
  public void pause(String nodeId) throws IOException, InterruptedException {
    ChildJvm p = process(nodeId);
    LOG.debug("SIGSTOP {} (pid {})", nodeId, p.pid());
    p.pause();
  }

  /** SIGCONT one paused ConfigNode. */
  public void resume(String nodeId) throws IOException, InterruptedException {
    ChildJvm p = process(nodeId);
    LOG.debug("SIGCONT {} (pid {})", nodeId, p.pid());
    p.resume();
  }

  /** SIGKILL every ConfigNode (the DataNodes stay). */
  public void killAllNodes() throws InterruptedException {
    for (String id : httpOf.keySet()) {
      kill(id);
    }
  }

  /** Restarts every ConfigNode that is not running, and waits for a running leader. */
  public String restartAllNodes() throws IOException, InterruptedException {
    return restartAllNodes(List.of());
  }

  /**
   * As {@link #restartAllNodes()}, with {@code extraFlags} added to the command lines of this
   * restart only (e.g. {@code --hold TYPE:STATE}).
   */
  public String restartAllNodes(List<String> extraFlags) throws IOException, InterruptedException {
    for (String id : httpOf.keySet()) {
      if (!isServing(id) && !isPaused(id)) {
        startNode(id, false, extraFlags);
      }
    }
    return leader();
  }

  /** SIGKILL one DataNode. */
  public void killDataNode(int id) throws InterruptedException {
    dataNodes.kill(id);
  }

  /** Whether DataNode {@code id}'s process runs. */
  public boolean isDataNodeRunning(int id) {
    return dataNodes.isRunning(id);
  }

  /** Starts a killed DataNode again on its port and data dir, and waits until it answers. */
  public void restartDataNode(int id) throws IOException, InterruptedException {
    dataNodes.restart(id);
  }

  /** Submissions with nonces and waits on procedures, through the serving nodes. */
  public ClusterProcedures procedures() {
    return procedures;
  }

  @Override
  public void close() {
    List<ChildJvm> all;
    synchronized (this) {
      all = new ArrayList<>(nodes.values());
      all.addAll(dataNodes.all());
    }
    for (ChildJvm p : all) {
      try {
        p.kill();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (keepDir) {
      LOG.info("kept {}", dir);
      return;
    }
    try {
      deleteTree(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("could not delete " + dir, e);
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  private static <T> T require(T value, String what) {
    if (value == null) {
      throw new IllegalArgumentException("no such member of the cluster: " + what);
    }
    return value;
  }
}
