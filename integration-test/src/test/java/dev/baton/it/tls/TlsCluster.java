package dev.baton.it.tls;

import static org.awaitility.Awaitility.await;

import dev.baton.confignode.certs.ClusterCertificates;
import dev.baton.confignode.certs.ClusterFiles;
import dev.baton.consensus.NodeRole;
import dev.baton.consensus.ProcedureClient;
import dev.baton.consensus.ProcedureNode;
import dev.baton.consensus.RaftSettings;
import dev.baton.consensus.spi.LoopbackPorts;
import dev.baton.consensus.tls.TlsSettings;
import dev.baton.procedure.NonceKey;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * In-process procedure nodes over real gRPC on loopback, with the certificates of a throwaway CA
 * ({@link ClusterCertificates}) under {@code dir/certs}.
 */
final class TlsCluster implements AutoCloseable {
  static final Duration WAIT = Duration.ofSeconds(60);

  /** Short, so that a refused call fails a test quickly. */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(3);

  final Map<String, InetSocketAddress> peers = new LinkedHashMap<>();
  final ClusterFiles certs;
  private final Path dir;
  private final Map<String, ProcedureNode<Object>> nodes = new LinkedHashMap<>();
  private final AtomicLong nonces = new AtomicLong();

  TlsCluster(Path dir, List<String> ids) throws IOException {
    this.dir = dir;
    for (String id : ids) {
      peers.put(id, new InetSocketAddress("127.0.0.1", LoopbackPorts.free()));
    }
    this.certs =
        ClusterCertificates.write(dir.resolve("certs"), ids, 0, ClusterCertificates.LOOPBACK_HOSTS);
  }

  /** A builder for node {@code id} with this cluster's peers and a storage directory of its own. */
  ProcedureNode.Builder<Object> builder(String id) {
    return ProcedureNode.<Object>builder()
        .nodeId(id)
        .peers(peers)
        .storageDir(dir.resolve("nodes").resolve(id))
        .registry(TwoSteps.registry())
        .environment(leader -> new Object())
        .coreWorkers(2)
        .requestTimeout(REQUEST_TIMEOUT);
  }

  /** Starts member {@code id} with its own certificate. */
  ProcedureNode<Object> start(String id) throws IOException {
    return start(id, certs.member(id).tlsSettings());
  }

  /** Starts member {@code id} with {@code tls}. */
  ProcedureNode<Object> start(String id, TlsSettings tls) throws IOException {
    ProcedureNode<Object> node = builder(id).tls(tls).build();
    node.start();
    nodes.put(id, node);
    return node;
  }

  /** The leader among {@code candidates}, once one of them leads with its executor running. */
  static ProcedureNode<Object> awaitLeader(List<ProcedureNode<Object>> candidates) {
    return await()
        .atMost(WAIT)
        .until(
            () ->
                candidates.stream()
                    .filter(n -> n.role() == NodeRole.LEADER_RUNNING)
                    .findFirst()
                    .orElse(null),
            n -> n != null);
  }

  /** Submits a procedure through {@code node} and waits until it finished; returns its id. */
  long submitAndFinish(ProcedureNode<Object> node) throws Exception {
    long id =
        node.submit(new TwoSteps(), new NonceKey(1, nonces.incrementAndGet()))
            .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    await()
        .atMost(WAIT)
        .until(
            () -> node.getInfo(id).get(WAIT.toMillis(), TimeUnit.MILLISECONDS),
            info -> info.isPresent() && info.get().finished());
    return id;
  }

  /** A client of this cluster with {@code tls}, or in plaintext if null. */
  ProcedureClient client(TlsSettings tls) {
    ProcedureClient.Builder b =
        ProcedureClient.builder()
            .peers(peers)
            .registry(TwoSteps.registry())
            .settings(RaftSettings.defaults().withRequestTimeout(REQUEST_TIMEOUT));
    return (tls == null ? b : b.tls(tls)).connect();
  }

  /** Closes node {@code id} (a crash, as far as the others can tell). */
  void close(String id) {
    ProcedureNode<Object> n = nodes.remove(id);
    if (n != null) {
      n.close();
    }
  }

  List<ProcedureNode<Object>> running() {
    return new ArrayList<>(nodes.values());
  }

  @Override
  public void close() {
    for (String id : new ArrayList<>(nodes.keySet())) {
      close(id);
    }
  }
}
