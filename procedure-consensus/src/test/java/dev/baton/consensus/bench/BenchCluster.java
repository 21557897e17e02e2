package dev.baton.consensus.bench;

import static dev.baton.consensus.bench.BenchDiagnostics.log;

import dev.baton.certs.CertificateAuthority;
import dev.baton.certs.CertificateRequest;
import dev.baton.certs.IssuedCertificate;
import dev.baton.certs.Usage;
import dev.baton.consensus.NodeRole;
import dev.baton.consensus.ProcedureNode;
import dev.baton.consensus.RaftSettings;
import dev.baton.consensus.StateMachineMetrics;
import dev.baton.consensus.spi.LoopbackPorts;
import dev.baton.consensus.tls.PeerIdentity;
import dev.baton.consensus.tls.TlsSettings;
import dev.baton.procedure.ProcedureExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * The benchmark's 3-node cluster in this JVM: starts and closes nodes, finds the (running) leader,
 * and waits for conditions with a bound, saying how the cluster stands when a wait gives up.
 */
final class BenchCluster {
  static final int NODES = 3;
  static final Duration WAIT = Duration.ofSeconds(60);
  static final String LOOPBACK = "127.0.0.1";

  private final Path dir;
  private final RaftSettings raft;
  private final int workers;
  private final Map<String, InetSocketAddress> peers = new LinkedHashMap<>();
  private final Map<String, ProcedureNode<Object>> nodes = new LinkedHashMap<>();
  private final Map<String, TlsSettings> tls = new LinkedHashMap<>();

  /**
   * @param withTls whether the members talk mutual TLS, with certificates of a throwaway CA
   */
  BenchCluster(Path dir, RaftSettings raft, int workers, boolean withTls) throws IOException {
    this.dir = dir;
    this.raft = raft;
    this.workers = workers;
    for (int i = 1; i <= NODES; i++) {
      peers.put("b" + i, new InetSocketAddress(LOOPBACK, LoopbackPorts.free()));
    }
    if (withTls) {
      CertificateAuthority ca = CertificateAuthority.create("bench-ca");
      for (String id : peers.keySet()) {
        IssuedCertificate c =
            ca.issue(
                CertificateRequest.named(id)
                    .withUri(PeerIdentity.member(id).uri())
                    .withHosts(List.of(LOOPBACK))
                    .withUsages(EnumSet.of(Usage.SERVER, Usage.CLIENT)));
        tls.put(id, TlsSettings.of(c.chain(), c.privateKey(), List.of(ca.certificate())));
      }
    }
  }

  /** Whether the members talk mutual TLS. */
  boolean isTls() {
    return !tls.isEmpty();
  }

  /** The storage directory of the cluster; each node's is {@code dir/<nodeId>}. */
  Path dir() {
    return dir;
  }

  void startAll() throws IOException {
    for (String id : peers.keySet()) {
      startNode(id);
    }
  }

  /** A copy of the nodes running now, by id. */
  Map<String, ProcedureNode<Object>> nodes() {
    synchronized (nodes) {
      return new LinkedHashMap<>(nodes);
    }
  }

  void startNode(String id) throws IOException {
    ProcedureNode.Builder<Object> b =
        ProcedureNode.<Object>builder()
            .nodeId(id)
            .peers(peers)
            .storageDir(dir.resolve(id))
            .registry(BenchProcedures.registry())
            .environment(leader -> new Object())
            .coreWorkers(workers)
            .maxWorkers(workers)
            .completedRetention(Duration.ZERO)
            .raft(raft);
    if (tls.containsKey(id)) {
      b.tls(tls.get(id));
    }
    ProcedureNode<Object> node = b.build();
    node.start();
    synchronized (nodes) {
      nodes.put(id, node);
    }
  }

  void closeNode(String id) {
    ProcedureNode<Object> n;
    synchronized (nodes) {
      n = nodes.remove(id);
    }
    if (n != null) {
      n.close();
    }
  }

  void closeAll() {
    for (String id : new ArrayList<>(nodes.keySet())) {
      closeNode(id);
    }
  }

  List<StateMachineMetrics> stateMachines() {
    synchronized (nodes) {
      return nodes.values().stream().map(ProcedureNode::metrics).toList();
    }
  }

  ProcedureNode<Object> currentLeader() {
    ProcedureNode<Object> l = otherLeader(null, true);
    return l != null ? l : awaitLeader();
  }

  ProcedureNode<Object> awaitLeader() {
    return awaitValue("a LEADER_RUNNING leader", () -> otherLeader(null, true));
  }

  /** A leader other than {@code not} (any if null), running its executor if {@code mustRun}. */
  ProcedureNode<Object> otherLeader(String not, boolean mustRun) {
    synchronized (nodes) {
      for (ProcedureNode<Object> n : nodes.values()) {
        if (!n.nodeId().equals(not)
            && n.isLeader()
            && (!mustRun || n.role() == NodeRole.LEADER_RUNNING)) {
          return n;
        }
      }
    }
    return null;
  }

  /** Live procedures of the running leader's executor (0 if it stopped just now). */
  int liveOnLeader() {
    return awaitLeader().executor().map(ProcedureExecutor::liveCount).orElse(0);
  }

  static ProcedureExecutor<Object> executorOf(ProcedureNode<Object> node) {
    return node.executor().orElseThrow(() -> new IllegalStateException(node + " runs no executor"));
  }

  <T> T awaitValue(String what, Supplier<T> s) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      T v = s.get();
      if (v != null) {
        return v;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
    throw gaveUp(what, null);
  }

  void awaitTrue(String what, Supplier<Boolean> s) {
    awaitValue(what, () -> s.get() ? Boolean.TRUE : null);
  }

  /**
   * Waits for a future; on failure or timeout, says what was awaited and how the cluster stands.
   */
  <T> T await(String what, CompletableFuture<T> f) throws InterruptedException {
    try {
      return f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw gaveUp(what, e instanceof ExecutionException ? e.getCause() : e);
    }
  }

  IllegalStateException gaveUp(String what, Throwable cause) {
    String state;
    synchronized (nodes) {
      state = BenchDiagnostics.clusterState(peers.keySet(), nodes);
    }
    String message =
        (cause == null ? "gave up after " + WAIT : "failed (" + cause + ")")
            + " waiting for "
            + what
            + "; cluster: "
            + state;
    log("%s", message);
    log("threads of the nodes at that moment:%n%s", BenchDiagnostics.threadDump());
    return new IllegalStateException(message, cause);
  }
}
