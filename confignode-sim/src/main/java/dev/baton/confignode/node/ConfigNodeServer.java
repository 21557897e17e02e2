package dev.baton.confignode.node;

import dev.baton.confignode.admin.AdminApiSettings;
import dev.baton.confignode.admin.AdminServer;
import dev.baton.confignode.admin.FaultRoutes;
import dev.baton.confignode.admin.FlowRoutes;
import dev.baton.confignode.auth.AuditLog;
import dev.baton.confignode.datanode.DataNodeConnector;
import dev.baton.confignode.events.EventLog;
import dev.baton.confignode.faults.StateHolds;
import dev.baton.confignode.meta.ClusterMetadata;
import dev.baton.confignode.metrics.NodeMetrics;
import dev.baton.confignode.procedures.AddDataNode;
import dev.baton.confignode.procedures.ConfigNodeEnv;
import dev.baton.confignode.procedures.ConfigNodeProcedures;
import dev.baton.confignode.procedures.ProcedureLimits;
import dev.baton.confignode.waits.ConfigNodeWaits;
import dev.baton.consensus.ProcedureNode;
import dev.baton.consensus.RaftSettings;
import dev.baton.procedure.NonceKey;
import dev.baton.procedure.ProcedureCodec;
import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.flow.FlowRuntime;
import dev.baton.procedure.util.Poll;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ConfigNode: a {@link ProcedureNode} running the ConfigNode procedures, plus its HTTP admin
 * API. DataNodes given at start are registered through {@link AddDataNode} procedures whose nonce
 * comes from the address, so every node may ask and each DataNode is added once.
 */
public final class ConfigNodeServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ConfigNodeServer.class);

  /** Nonce group of the registrations of start-up DataNodes. */
  static final long DATANODE_NONCE_GROUP = ConfigNodeProcedures.NODE_NONCE_GROUP;

  /**
   * How a node is set up.
   *
   * @param httpPort port of the admin API (0 picks a free one)
   * @param dataNodes host:port of DataNodes to register at start (may be empty)
   * @param faults whether the fault routes ({@link StateHolds}) are on; for drills only
   * @param holdsAtStart holds set when the node starts (with {@code faults} on), so a node
   *     restarted in a drill holds before it can run a single step
   * @param limits what one request may ask of the cluster
   * @param api how the admin API is reached and guarded (bind address, TLS, tokens, audit log)
   * @param raftAccess how the Raft peer is reached and secured (cluster id, bind address, TLS)
   * @param breakDeadlocks whether this node's executor breaks a wait-for cycle of procedures by
   *     failing the youngest that waits for a lock (else it only reports it); see {@link
   *     ProcedureExecutor.Builder#breakDeadlocks}
   */
  public record Config(
      String nodeId,
      Map<String, InetSocketAddress> peers,
      Path dataDir,
      int httpPort,
      List<String> dataNodes,
      RaftSettings raft,
      boolean faults,
      List<StateHolds.Hold> holdsAtStart,
      ProcedureLimits limits,
      AdminApiSettings api,
      RaftAccess raftAccess,
      boolean breakDeadlocks) {
    /** Deadlocks are broken unless a node is told otherwise (why: {@link ProcedureExecutor}). */
    public static final boolean DEFAULT_BREAK_DEADLOCKS = true;

    public Config {
      holdsAtStart = List.copyOf(holdsAtStart);
      if (!faults && !holdsAtStart.isEmpty()) {
        throw new IllegalArgumentException("holds at start " + holdsAtStart + " need faults on");
      }
    }

    /** A node with the default limits. */
    public Config(
        String nodeId,
        Map<String, InetSocketAddress> peers,
        Path dataDir,
        int httpPort,
        List<String> dataNodes,
        RaftSettings raft,
        boolean faults,
        List<StateHolds.Hold> holdsAtStart) {
      this(
          nodeId,
          peers,
          dataDir,
          httpPort,
          dataNodes,
          raft,
          faults,
          holdsAtStart,
          ProcedureLimits.DEFAULTS,
          AdminApiSettings.LOOPBACK,
          RaftAccess.LOOPBACK,
          DEFAULT_BREAK_DEADLOCKS);
    }

    /** A node without the fault routes. */
    public Config(
        String nodeId,
        Map<String, InetSocketAddress> peers,
        Path dataDir,
        int httpPort,
        List<String> dataNodes,
        RaftSettings raft) {
      this(nodeId, peers, dataDir, httpPort, dataNodes, raft, false, List.of());
    }
  }

  private final Config config;
  private final ProcedureNode<ConfigNodeEnv> node;
  private final ClusterMetadata metadata;
  private final LeaderAdminPublisher publisher;
  private final StateHolds holds;
  private AdminServer api;
  private AuditLog audit;
  private final FlowRuntime<ConfigNodeEnv> flowRuntime;
  private final DataNodeConnector dataNodes;
  private final NodeMetrics metrics;
  private final EventLog events;
  private Thread registrar;
  private final CompletableFuture<String> removed = new CompletableFuture<>();

  public ConfigNodeServer(Config config) {
    this.config = config;
    this.holds =
        config.faults()
            ? StateHolds.enabled(ConfigNodeProcedures.stateNames())
            : StateHolds.disabled();
    for (StateHolds.Hold h : config.holdsAtStart()) {
      holds.hold(h.type(), h.state());
    }
    AtomicReference<ClusterMetadata> meta = new AtomicReference<>();
    ProcedureRegistry registry = ConfigNodeProcedures.registry();
    this.metrics = new NodeMetrics(registry.types());
    this.flowRuntime = FlowRoutes.runtime(registry);
    AtomicReference<LeaderAdminPublisher> publish = new AtomicReference<>();
    AtomicReference<ProcedureNode<ConfigNodeEnv>> self = new AtomicReference<>();
    // one counter for every term this process leads: commands stay ordered even across envs
    AtomicLong commandSeq = new AtomicLong();
    // one for the process, not one per term: a new client costs seconds on a busy machine (TLS
    // defaults load); made once the node serves (start), or by its first DataNode call. With TLS in
    // Raft, DataNodes are called over HTTPS with this node's member certificate
    this.dataNodes = DataNodeConnector.deferred(config.raftAccess().tls());
    ProcedureNode.Builder<ConfigNodeEnv> builder =
        ProcedureNode.<ConfigNodeEnv>builder()
            .nodeId(config.nodeId())
            .peers(config.peers())
            .storageDir(config.dataDir().resolve("raft"))
            .registry(registry)
            .environment(
                leader -> {
                  publish.get().becameLeader(leader);
                  return new ConfigNodeEnv(
                      leader, meta.get(), holds, commandSeq, dataNodes, self.get().membership());
                })
            .raft(config.raft())
            .maxLiveProcedures(config.limits().maxLiveProcedures())
            .onRemoved(removed::complete)
            .executor(
                b -> b.metrics(metrics.executorMetrics()).breakDeadlocks(config.breakDeadlocks()));
    this.events = EventLog.withDefaults(config.nodeId(), new ProcedureCodec(registry));
    builder.onApplied(events);
    this.node = config.raftAccess().applyTo(builder).build();
    self.set(node);
    metrics.watch(node);
    this.metadata = new ClusterMetadata(node.metadata());
    flowRuntime.bind(node::executor);
    meta.set(metadata);
    this.publisher = new LeaderAdminPublisher(node, metadata);
    publish.set(publisher);
  }

  /**
   * Starts the Raft peer, then the admin API. If either fails, whatever started is closed again
   * (the Raft port and storage are released) and the failure is thrown.
   */
  public void start() throws IOException {
    try {
      node.start();
      audit = AuditLog.open(config.api().auditLogIn(config.dataDir()), config.nodeId());
      api =
          new AdminServer(
                  node, metadata, holds, config.limits(), config.api(), audit, metrics, events)
              .addRoutes(
                  new FlowRoutes(
                      node,
                      new NodeFlowGateway(node, ConfigNodeWaits.ADMIN_CLUSTER_CALL),
                      flowRuntime,
                      ConfigNodeWaits.ADMIN_CLUSTER_CALL,
                      metrics))
              .addRoutes(new FaultRoutes(node, holds));
      api.start(config.httpPort());
      publisher.serving(config.api().advertisedHost() + ":" + api.port());
      dataNodes.prepareInBackground("datanode-client-" + config.nodeId());
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
    if (!config.dataNodes().isEmpty()) {
      registrar = new Thread(this::registerDataNodes, "register-datanodes-" + config.nodeId());
      registrar.setDaemon(true);
      registrar.start();
    }
    LOG.info(
        "ConfigNode {} serves its admin API on {}://{}:{}, audit log {}",
        config.nodeId(),
        api.scheme(),
        config.api().bindHost(),
        api.port(),
        audit.file());
    if (config.api().tokens().isEmpty()) {
      LOG.warn(
          "ConfigNode {} serves its admin API without tokens: anyone on this host can run, abort"
              + " and hold procedures. Give it a token file with --tokens FILE",
          config.nodeId());
    }
  }

  public int httpPort() {
    return api.port();
  }

  /** {@code https} when the admin API has a certificate, else {@code http}. */
  public String httpScheme() {
    return api.scheme();
  }

  /** The admin API this node serves (started by {@link #start}). */
  public AdminServer adminServer() {
    return api;
  }

  /** The file of this node's audit log. */
  public Path auditLog() {
    return config.api().auditLogIn(config.dataDir());
  }

  public ProcedureNode<ConfigNodeEnv> node() {
    return node;
  }

  /**
   * Completes, with the reason, when this node finds it was removed from the cluster's Raft group:
   * it can take no further part, and its process should stop ({@code node} does, exit 0).
   */
  public CompletableFuture<String> removed() {
    return removed;
  }

  /** This node's fault holds (disabled unless started with {@code faults}). */
  public StateHolds holds() {
    return holds;
  }

  @Override
  public void close() {
    if (registrar != null) {
      registrar.interrupt();
    }
    publisher.close();
    if (api != null) {
      api.close();
    }
    node.close();
    events.close();
    if (audit != null) {
      try {
        audit.close();
      } catch (IOException e) {
        LOG.warn("ConfigNode {}: closing the audit log failed: {}", config.nodeId(), e.toString());
      }
    }
  }

  /** Registers the start-up DataNodes, all within {@link ConfigNodeWaits#REGISTRATION_PATIENCE}. */
  private void registerDataNodes() {
    long start = System.nanoTime();
    for (String address : config.dataNodes()) {
      Duration left = ConfigNodeWaits.REGISTRATION_PATIENCE.minusNanos(System.nanoTime() - start);
      try {
        long id =
            Poll.every(ConfigNodeWaits.REGISTRATION_RETRY)
                .within(left.isNegative() ? Duration.ZERO : left)
                .notYetOn(Exception.class)
                .onTimeout(
                    expiry ->
                        new IOException(
                            expiry.lastFailure() == null
                                ? "no leader was elected"
                                : expiry.lastFailure().toString()))
                .until(() -> register(address));
        LOG.info("DataNode {} registered by procedure {}", address, id);
      } catch (InterruptedException e) {
        return;
      } catch (Exception e) {
        LOG.error("Could not register DataNode {}: {}", address, e.getMessage());
      }
    }
  }

  /** The id of the procedure that registers the DataNode; null while there is no leader. */
  private Long register(String address) throws Exception {
    if (node.leaderId().isEmpty()) {
      // No leader yet: wait for one rather than submit into the election. A submission the Raft
      // client has to carry through an election leaves that client's next request hanging until
      // its timeout, which would make this node's first admin API read a 503.
      return null;
    }
    NonceKey nonce = new NonceKey(DATANODE_NONCE_GROUP, addressNonce(address));
    return node.submit(new AddDataNode(address), nonce)
        .get(config.raft().requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
  }

  static long addressNonce(String address) {
    return UUID.nameUUIDFromBytes(address.getBytes(StandardCharsets.UTF_8))
        .getMostSignificantBits();
  }
}
