package dev.baton.confignode.local;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.NodeApiClient;
import dev.baton.confignode.cluster.ChildJvm;
import dev.baton.confignode.datanode.DataNodeClient;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * ConfigNode ({@code cn1..cnN}) and DataNode ({@code 1..M}) processes of this jar on 127.0.0.1 with
 * free ports, their logs and data under one temp directory. The ConfigNodes register every DataNode
 * started before them. {@link #close} kills every process and deletes the directory (unless kept).
 */
public final class LocalCluster implements AutoCloseable {
  /** How long the cluster may take to elect and recover; generous for a loaded 2-core machine. */
  public static final Duration CLUSTER_WAIT = Duration.ofSeconds(90);

  public static final Duration POLL = Duration.ofMillis(20);

  private final Path dir;
  private final boolean keepDir;
  private final List<LocalProcess> processes = new ArrayList<>();
  private final Map<String, LocalProcess> nodeProcs = new LinkedHashMap<>();
  private final Map<String, String> httpOf = new LinkedHashMap<>();
  private final List<String> dataNodeAddrs = new ArrayList<>();

  /** The --peers value every ConfigNode process gets (also a restarted one). */
  private String peersArg;

  private NodeApiClient api;

  private LocalCluster(Path dir, boolean keepDir) {
    this.dir = dir;
    this.keepDir = keepDir;
  }

  /**
   * A cluster (nothing started yet) in a new temp directory named {@code prefix...}, deleted by
   * {@link #close} unless {@code keepDir}.
   */
  public static LocalCluster inTempDir(String prefix, boolean keepDir) throws IOException {
    return new LocalCluster(Files.createTempDirectory(prefix), keepDir);
  }

  /** A condition polled by {@link #awaitTrue}; an exception means "not yet". */
  @FunctionalInterface
  public interface Check {
    boolean ok() throws Exception;
  }

  /** Starts {@code n} DataNode processes and waits until each answers. */
  public void startDataNodes(int n) throws IOException, InterruptedException {
    for (int i = 1; i <= n; i++) {
      int port = freePort();
      String addr = "127.0.0.1:" + port;
      processes.add(
          LocalProcess.start(
              "datanode-" + i,
              dir,
              List.of(
                  "datanode",
                  "--id",
                  Integer.toString(i),
                  "--port",
                  Integer.toString(port),
                  "--data-dir",
                  dir.resolve("dn" + i).toString())));
      dataNodeAddrs.add(addr);
      DataNodeClient client = new DataNodeClient(addr);
      awaitTrue(() -> client.state() != null, "DataNode " + i + " up");
    }
  }

  /** Starts {@code n} ConfigNode processes, which register the DataNodes started so far. */
  public void startConfigNodes(int n) throws IOException {
    StringBuilder peers = new StringBuilder();
    for (int i = 1; i <= n; i++) {
      String id = "cn" + i;
      peers
          .append(peers.length() == 0 ? "" : ",")
          .append(id)
          .append("=127.0.0.1:")
          .append(freePort());
      httpOf.put(id, "127.0.0.1:" + freePort());
    }
    peersArg = peers.toString();
    for (String id : httpOf.keySet()) {
      List<String> args = new ArrayList<>(nodeArgs(id));
      if (!dataNodeAddrs.isEmpty()) {
        args.add("--datanodes");
        args.add(String.join(",", dataNodeAddrs));
      }
      LocalProcess p = LocalProcess.start(id, dir, args);
      processes.add(p);
      nodeProcs.put(id, p);
    }
    api = new NodeApiClient(new ArrayList<>(httpOf.values()));
  }

  private List<String> nodeArgs(String id) {
    return ChildJvm.nodeArgs(id, peersArg, dir.resolve(id), httpOf.get(id));
  }

  /** SIGKILL of ConfigNode {@code id}. */
  public void kill(String id) {
    nodeProcs.get(id).kill();
  }

  /** Starts ConfigNode {@code id} again on its data directory and ports (after {@link #kill}). */
  public void restart(String id) throws IOException {
    LocalProcess p = LocalProcess.start(id + "-restarted", dir, nodeArgs(id));
    processes.add(p);
    nodeProcs.put(id, p);
  }

  /** A client of every ConfigNode's admin API, tried in turn. */
  public NodeApiClient api() {
    return api;
  }

  /** ConfigNode id to its admin API host:port. */
  public Map<String, String> httpAddresses() {
    return Map.copyOf(httpOf);
  }

  /** The DataNodes' host:port, in id order from 1. */
  public List<String> dataNodeAddresses() {
    return List.copyOf(dataNodeAddrs);
  }

  public Path dir() {
    return dir;
  }

  /**
   * Waits for a LEADER_RUNNING ConfigNode other than {@code not} in a term above {@code afterTerm};
   * returns its id. {@code termSeen} runs each time a node reports a later term with a leader other
   * than {@code not} (the election, before the new executor runs).
   */
  public String awaitLeader(String not, long afterTerm, Runnable termSeen)
      throws InterruptedException, IOException {
    long deadline = System.nanoTime() + CLUSTER_WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      for (Map.Entry<String, String> e : httpOf.entrySet()) {
        if (e.getKey().equals(not)) {
          continue;
        }
        try {
          JsonNode c = api.cluster(e.getValue());
          if (c.path("term").asLong() > afterTerm
              && !c.path("leaderId").isNull()
              && !c.path("leaderId").asText().equals(not)) {
            termSeen.run();
          }
          if ("LEADER_RUNNING".equals(c.path("role").asText())
              && c.path("term").asLong() > afterTerm) {
            return e.getKey();
          }
        } catch (IOException unreachable) {
          // starting, or the killed one
        }
      }
      Thread.sleep(POLL.toMillis());
    }
    throw new IOException("no leader within " + CLUSTER_WAIT);
  }

  /** Polls {@code check} until it holds, up to {@link #CLUSTER_WAIT}. */
  public static void awaitTrue(Check check, String what) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + CLUSTER_WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        if (check.ok()) {
          return;
        }
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception notYet) {
        // keep waiting
      }
      Thread.sleep(POLL.toMillis());
    }
    throw new IOException("gave up waiting for: " + what);
  }

  /** Kills every process started, then deletes the directory unless it is to be kept. */
  @Override
  public void close() {
    for (LocalProcess p : processes) {
      p.kill();
    }
    if (!keepDir) {
      deleteTree(dir);
    }
  }

  /** Deletes a directory tree, best effort (a temp dir). */
  static void deleteTree(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // best effort: a temp dir
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
