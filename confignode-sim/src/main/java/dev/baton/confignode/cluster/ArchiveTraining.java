package dev.baton.confignode.cluster;

import dev.baton.confignode.certs.ClusterCertificates;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.waits.ConfigNodeWaits;
import dev.baton.consensus.spi.LoopbackPorts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The run whose loaded classes a {@link NodeClassArchive} holds: a secured cluster of training
 * ConfigNodes, started as the child JVMs start (mutual TLS between members, HTTPS admin API,
 * tokens), until each serves and one runs the executor as leader, then asked once through each
 * admin API. So the archive has the classes of a node's start and also those of TLS, of gRPC's
 * client and server, of votes, appends and commits, which a node restarted into a running cluster
 * otherwise reads from its jars when the leader first reaches it (about 2,600 classes, against
 * 6,200 a one-node plaintext training covered), and of the admin API's requests.
 */
final class ArchiveTraining {
  /** A leader and two followers: both sides of every Raft call run. */
  static final int NODES = 3;

  /** How long the training cluster may take to serve and run its leader's executor. */
  static final Duration WAIT = Duration.ofSeconds(120);

  /** How long a training node may take to stop (it writes nothing at exit the list needs). */
  static final Duration EXIT_WAIT = Duration.ofSeconds(60);

  /** The training nodes' id prefix. */
  static final String NODE_PREFIX = "archive";

  /** What a node prints once it serves (see the {@code node} command), before its id. */
  static final String SERVING_LINE = "node ";

  /** What the leader logs once its executor runs. */
  static final String EXECUTOR_RUNNING = " runs the executor of term ";

  private ArchiveTraining() {}

  /**
   * Runs the training cluster in {@code work} until it serves and a leader runs its executor, stops
   * it, and returns the lists of classes its nodes loaded, one per node.
   */
  static List<Path> run(Path work) throws IOException, InterruptedException {
    Files.createDirectories(work);
    ClusterSecurity security = ClusterSecurity.secured(work);
    Map<String, String> raft = new LinkedHashMap<>();
    Map<String, Integer> httpPorts = new LinkedHashMap<>();
    Map<String, List<String>> hosts = new LinkedHashMap<>();
    for (int i = 1; i <= NODES; i++) {
      String id = NODE_PREFIX + i;
      raft.put(id, "127.0.0.1:" + LoopbackPorts.free());
      httpPorts.put(id, LoopbackPorts.free());
      hosts.put(id, ClusterCertificates.LOOPBACK_HOSTS);
    }
    security.issueCertificates(hosts);
    String peers = ProcessCluster.peersFlag(raft);

    List<Path> lists = new ArrayList<>();
    List<Path> outputs = new ArrayList<>();
    List<Process> nodes = new ArrayList<>();
    try {
      for (String id : raft.keySet()) {
        Path list = work.resolve(id + ".classes");
        Path out = work.resolve(id + ".log");
        List<String> args =
            new ArrayList<>(
                ChildJvm.nodeArgs(id, peers, work.resolve(id), "127.0.0.1:" + httpPorts.get(id)));
        args.addAll(security.nodeFlags(id));
        List<String> cmd = ChildJvm.command(List.of("-XX:DumpLoadedClassList=" + list), args);
        nodes.add(
            new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start());
        lists.add(list);
        outputs.add(out);
      }
      ConfigNodeWaits.clusterPoll(WAIT, "the training cluster serving, its leader running")
          .untilTrue(() -> nodes.stream().anyMatch(p -> !p.isAlive()) || trained(outputs));
      if (!trained(outputs)) {
        throw new IOException("a training node ended before the cluster served");
      }
      askEveryNode(security, httpPorts);
    } finally {
      for (Process p : nodes) {
        p.destroy();
      }
      for (Process p : nodes) {
        if (!p.waitFor(EXIT_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
          p.destroyForcibly();
        }
      }
    }
    for (Path list : lists) {
      if (!Files.isRegularFile(list)) {
        throw new IOException("a training node wrote no class list: " + list);
      }
    }
    return lists;
  }

  /**
   * Reads each node's {@code GET /api/cluster} and {@code GET /metrics}, as a launcher waiting for
   * a running leader does: so the archive also has the classes of the admin API's requests (Jetty's
   * HTTPS request path, the gate, the routes), which a restarted node otherwise reads from its jars
   * while its first callers wait.
   */
  private static void askEveryNode(ClusterSecurity security, Map<String, Integer> httpPorts)
      throws IOException, InterruptedException {
    List<String> addresses = httpPorts.values().stream().map(p -> "127.0.0.1:" + p).toList();
    NodeApiClient api = security.secure(new NodeApiClient(addresses));
    for (String address : addresses) {
      api.cluster(address);
      api.metrics(address);
    }
  }

  /** Whether every node's output says it serves and one says its executor runs. */
  private static boolean trained(List<Path> outputs) throws IOException {
    boolean leaderRuns = false;
    for (int i = 0; i < outputs.size(); i++) {
      String serving = SERVING_LINE + NODE_PREFIX + (i + 1) + " ";
      boolean serves = false;
      try (Stream<String> lines = Files.lines(outputs.get(i), StandardCharsets.UTF_8)) {
        for (String line : (Iterable<String>) lines::iterator) {
          serves |= line.startsWith(serving);
          leaderRuns |= line.contains(EXECUTOR_RUNNING);
        }
      }
      if (!serves) {
        return false;
      }
    }
    return leaderRuns;
  }
}
