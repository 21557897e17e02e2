package dev.baton.confignode.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.datanode.DataNodeClient;
import dev.baton.confignode.hosts.NetnsHosts;
import dev.baton.confignode.waits.ConfigNodeWaits;
import dev.baton.consensus.ProcedureClient;
import dev.baton.consensus.tls.TlsSettings;
import dev.baton.procedure.ProcedureRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local cluster of ConfigNode ({@code cn1..cnN}) and DataNode ({@code 1..M}) processes of this
 * jar, their logs and data in one temp dir, on loopback ports chosen free at start or each on a
 * host of its own in a network namespace ({@link ClusterHosts#NETNS}, {@link #netns()}), for
 * failover drills, chaos, the {@code drill} and the {@code bench}, its ConfigNodes requiring tokens
 * by default ({@link ClusterTokens}; {@link #client} sends the admin's): start (all at once with
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
  private final Path dir;

  private final boolean keepDir;
  private final List<String> nodeFlags;

  private final ClusterSecurity security;
  private final HostPlacement placement;

  private final Map<String, String> httpOf = new LinkedHashMap<>();

  /** Each ConfigNode's {@code --peers}: the first ones share one, an added one has its own. */
  private final Map<String, String> peersOf = new LinkedHashMap<>();

  /** Each ConfigNode's Raft address, host:port. */
  private final Map<String, String> raftOf = new LinkedHashMap<>();

  private final Map<String, ChildJvm> nodes = new LinkedHashMap<>();
  private final DataNodeProcesses dataNodes;
  private final ClusterProcedures procedures = new ClusterProcedures(this::api);
  private String peersArg;
  private final Map<String, InetSocketAddress> raftPeers = new LinkedHashMap<>();
  private NodeApiClient anyNodeClient;
  private List<String> apiTargets = List.of();
  private NodeApiClient api;
  private int restarts;

  private ProcessCluster(
      Path dir,
      boolean keepDir,
      List<String> nodeFlags,
      ClusterSecurity security,
      HostPlacement placement) {
    this.dir = dir;
    this.keepDir = keepDir;
    this.nodeFlags = List.copyOf(nodeFlags);
    this.security = security;
    this.placement = placement;
    this.dataNodes = new DataNodeProcesses(dir, placement, security);
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
    return start(nodes, dataNodes, keepDir, nodeFlags, ClusterHosts.LOOPBACK);
  }

  /** As {@link #start(int, int, boolean, List)}, secured, its processes placed on {@code hosts}. */
  public static ProcessCluster start(
      int nodes, int dataNodes, boolean keepDir, List<String> nodeFlags, ClusterHosts hosts)
      throws IOException, InterruptedException {
    if (nodes < 1 || dataNodes < 0) {
      throw new IllegalArgumentException(
          "need at least one ConfigNode and no negative DataNode count: "
              + nodes
              + ", "
              + dataNodes);
    }
    ProcessCluster c = create("baton-cluster", keepDir, nodeFlags, true, hosts);
    try {
      c.startDataNodes(dataNodes);
      c.startConfigNodes(nodes);
      c.awaitLeader(Set.of(), -1);
      ConfigNodeWaits.clusterPoll(CLUSTER_WAIT, "every DataNode registered")
          .untilTrue(() -> c.api().get("/api/metadata").get("dataNodes").size() == dataNodes);
      c.awaitEveryNodeHoldsTheLog();
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
   * ConfigNodes require tokens, serve their admin API over HTTPS and talk Raft over mutual TLS, and
   * its DataNodes serve HTTPS with client certificates. Start it with {@link #startDataNodes} and
   * {@link #startConfigNodes}.
   */
  public static ProcessCluster create(String prefix, boolean keepDir, List<String> nodeFlags)
      throws IOException {
    return create(prefix, keepDir, nodeFlags, true);
  }

  /**
   * As {@link #create(String, boolean, List)}; without {@code secured} the ConfigNodes and
   * DataNodes serve anyone on loopback and talk Raft and HTTP in plain text (as nodes started
   * without {@code --tokens} and the TLS flags), to compare.
   */
  public static ProcessCluster create(
      String prefix, boolean keepDir, List<String> nodeFlags, boolean secured) throws IOException {
    return create(prefix, keepDir, nodeFlags, secured, ClusterHosts.LOOPBACK);
  }

  /**
   * As {@link #create(String, boolean, List, boolean)}, its processes placed on {@code hosts}. On
   * hosts in network namespaces it must be secured (a ConfigNode serves its admin API on an address
   * other than loopback only with tokens), and it needs root and iproute2.
   *
   * @throws IllegalArgumentException for hosts in namespaces without {@code secured}
   * @throws IllegalStateException if the hosts cannot be made (saying what is missing)
   */
  public static ProcessCluster create(
      String prefix, boolean keepDir, List<String> nodeFlags, boolean secured, ClusterHosts hosts)
      throws IOException {
    if (hosts == ClusterHosts.NETNS && !secured) {
      throw new IllegalArgumentException(
          "hosts in network namespaces need a secured cluster: a ConfigNode serves its admin API"
              + " on an address other than loopback only with tokens");
    }
    HostPlacement placement = placement(hosts);
    try {
      Path dir = Files.createTempDirectory(prefix);
      ClusterSecurity security = secured ? ClusterSecurity.secured(dir) : ClusterSecurity.none();
      return new ProcessCluster(dir, keepDir, nodeFlags, security, placement);
    } catch (IOException | RuntimeException e) {
      placement.close();
      throw e;
    }
  }

  private static HostPlacement placement(ClusterHosts hosts) throws IOException {
    if (hosts == ClusterHosts.LOOPBACK) {
      return new LoopbackPlacement();
    }
    try {
      return new NetnsPlacement(NetnsHosts.open());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while making the hosts", e);
    }
  }

  /** Where the processes run. */
  public ClusterHosts hosts() {
    return placement.kind();
  }

  /**
   * The hosts in network namespaces the processes run on ({@link ClusterHosts#NETNS}), to cut and
   * heal the network between them: ConfigNode {@code cnN} on host {@code cnN}, DataNode {@code N}
   * on host {@code dnN}.
   */
  public Optional<NetnsHosts> netns() {
    return placement.netns();
  }

  /**
   * Whether the ConfigNodes require tokens, serve their admin API over HTTPS and talk Raft over
   * mutual TLS, and the DataNodes serve HTTPS to certificates of the cluster's CA only, commands to
   * the ConfigNodes' only.
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
      placeNode("cn" + i);
    }
    peersArg = peersFlag(raftOf);
    raftOf.keySet().forEach(id -> peersOf.put(id, peersArg));
    Map<String, List<String>> certificateHosts = new LinkedHashMap<>();
    for (String id : raftOf.keySet()) {
      certificateHosts.put(id, placement.certificateHosts(placement.host(id)));
    }
    security.issueCertificates(certificateHosts);
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
    args.add("--http-bind");
    args.add(placement.host(id));
    args.addAll(nodeFlags);
    args.addAll(extraFlags);
    args.addAll(security.nodeFlags(id));
    if (registerDataNodes && !dataNodes.ids().isEmpty()) {
      args.add("--datanodes");
      args.add(String.join(",", dataNodes.addresses()));
    }
    ChildJvm p = ChildJvm.start(id + "-" + restarts++, dir, placement.launcher(id), args);
    synchronized (this) {
      nodes.put(id, p);
    }
  }

  /** Gives ConfigNode {@code id} its host's Raft and admin API addresses. */
  private synchronized void placeNode(String id) throws IOException {
    String host = placement.host(id);
    int raftPort = placement.port(HostPlacement.Service.RAFT);
    raftOf.put(id, host + ":" + raftPort);
    raftPeers.put(id, new InetSocketAddress(host, raftPort));
    httpOf.put(id, host + ":" + placement.port(HostPlacement.Service.ADMIN_API));
  }

  /** A node command's {@code --peers}: {@code ID=HOST:PORT,...} of every member in {@code raft}. */
  static String peersFlag(Map<String, String> raft) {
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
      placeNode(id);
      peersOf.put(id, peersFlag(raftOf));
    }
    security.issueCertificate(id, placement.certificateHosts(placement.host(id)));
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

  /**
   * A client of DataNode {@code id} (1-based); of a secured cluster, over HTTPS with the admin
   * client's certificate (it reads state and controls faults; commands need a ConfigNode's).
   */
  public DataNodeClient dataNode(int id) {
    return dataNodes.client(id);
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

  /**
   * A Raft client of the ConfigNodes (not their admin API), for what needs Raft itself: a
   * benchmark's baseline. Of a secured cluster, with the operator's client certificate. Close it.
   */
  public ProcedureClient raftClient(ProcedureRegistry registry) throws IOException {
    if (raftPeers.isEmpty()) {
      throw new IllegalStateException("the ConfigNodes of " + dir + " are not started");
    }
    ProcedureClient.Builder b = ProcedureClient.builder().peers(raftPeers).registry(registry);
    Optional<TlsSettings> tls = security.raftClientTls();
    if (tls.isPresent()) {
      b.tls(tls.get());
    }
    return b.connect();
  }

  /**
   * A client of one node's admin API, as {@link #client(List)}, that asks once: a failed read is
   * not retried (for reads whose outcome a history records).
   */
  public NodeApiClient directClient(String nodeId) {
    return security.secure(new NodeApiClient(List.of(http(nodeId)), Duration.ZERO));
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
    try {
      return ConfigNodeWaits.clusterPoll(
              ConfigNodeWaits.LEADER_POLL,
              CLUSTER_WAIT,
              "a running leader" + (exclude.isEmpty() ? "" : " other than " + exclude))
          .until(() -> runningLeader(exclude, afterTerm, termSeen));
    } catch (IOException noLeader) {
      throw new IOException(noLeader.getMessage() + "; now " + describeStuck(), noLeader);
    }
  }

  /**
   * Each ConfigNode's own view in one line ({@code cn1: gone; cn2: FOLLOWER term 7 leader none}),
   * after asking every live one for a thread dump into its log: for a wait that gave up.
   */
  public String describeStuck() throws InterruptedException {
    Map<String, ChildJvm> now;
    synchronized (this) {
      now = new LinkedHashMap<>(nodes);
    }
    return StuckClusterReport.describe(now, this::cluster);
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

  /**
   * Waits until every ConfigNode applied what the leader had committed when this was called. Ratis
   * does not count the vote of a member whose log is empty once the group has committed entries (it
   * cannot tell a member that never received the log from one whose disk was wiped): a cluster that
   * loses its leader while a member is still empty elects no one until the lost member returns. A
   * cluster is up only when no member is empty.
   */
  public void awaitEveryNodeHoldsTheLog() throws IOException, InterruptedException {
    String leader = leader();
    long committed = cluster(leader).path("commitIndex").asLong();
    for (String id : servingNodes()) {
      awaitApplied(id, committed, CLUSTER_WAIT);
    }
  }

  /** Waits until node {@code id} reports an applied index of at least {@code index}. */
  public void awaitApplied(String id, long index, Duration patience)
      throws IOException, InterruptedException {
    ConfigNodeWaits.clusterPoll(patience, "node " + id + " applied the log up to index " + index)
        .untilTrue(() -> cluster(id).path("appliedIndex").asLong() >= index);
  }

  /** The current running leader. */
  public String leader() throws IOException, InterruptedException {
    return awaitLeader(Set.of(), -1);
  }

  public long term(String nodeId) throws IOException, InterruptedException {
    return cluster(nodeId).get("term").asLong();
  }

  /** The executable of the node's current process, as the system reports it. */
  public String command(String nodeId) {
    return process(nodeId).command();
  }

  /** The process id of the node's current (or last) process. */
  public long pid(String nodeId) {
    return process(nodeId).pid();
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
    placement.close();
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

  static void deleteTree(Path root) throws IOException {
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
