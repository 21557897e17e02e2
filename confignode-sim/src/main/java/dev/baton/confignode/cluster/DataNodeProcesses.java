package dev.baton.confignode.cluster;

import dev.baton.confignode.datanode.DataNodeClient;
import dev.baton.confignode.waits.ConfigNodeWaits;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DataNode processes of a {@link ProcessCluster}: ids 1..M, DataNode N on host {@code dnN} of
 * the cluster's {@link HostPlacement}, on a port chosen at its first start and kept across
 * restarts, its data in {@code <dir>/dn<id>}, its output in {@code
 * <dir>/datanode-<id>-<launch>.log}, with fault routes on and, in a secured cluster, TLS ({@link
 * ClusterSecurity}). Thread-safe.
 */
final class DataNodeProcesses {
  private static final Logger LOG = LoggerFactory.getLogger(DataNodeProcesses.class);

  /** A DataNode's host is this followed by its id. */
  static final String HOST_PREFIX = "dn";

  /** The flag that turns a DataNode's fault routes on: drills and tests inject faults. */
  static final String FAULTS_FLAG = "--faults";

  private final Path dir;
  private final HostPlacement placement;
  private final ClusterSecurity security;
  private final Map<Integer, String> addresses = new LinkedHashMap<>();
  private final Map<Integer, ChildJvm> processes = new LinkedHashMap<>();
  private int launches;

  DataNodeProcesses(Path dir, HostPlacement placement, ClusterSecurity security) {
    this.dir = dir;
    this.placement = placement;
    this.security = security;
  }

  /** Starts {@code n} more DataNodes, all at once, and waits until each answers. */
  void startNew(int n) throws IOException, InterruptedException {
    List<Integer> started = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int id;
      synchronized (this) {
        id = addresses.size() + 1;
        addresses.put(
            id,
            placement.host(HOST_PREFIX + id)
                + ":"
                + placement.port(HostPlacement.Service.DATANODE));
      }
      launch(id);
      started.add(id);
    }
    for (int id : started) {
      awaitAnswering(id);
    }
  }

  synchronized List<Integer> ids() {
    return List.copyOf(addresses.keySet());
  }

  synchronized List<String> addresses() {
    return List.copyOf(addresses.values());
  }

  synchronized String address(int id) {
    String address = addresses.get(id);
    if (address == null) {
      throw new IllegalArgumentException("no such member of the cluster: DataNode " + id);
    }
    return address;
  }

  /** A client of DataNode {@code id}, secured as the cluster is. */
  DataNodeClient client(int id) {
    return security.dataNodeClients().client(address(id));
  }

  /** SIGKILL one DataNode. */
  void kill(int id) throws InterruptedException {
    ChildJvm p = process(id);
    LOG.debug("SIGKILL DataNode {} (pid {})", id, p.pid());
    p.kill();
  }

  synchronized boolean isRunning(int id) {
    ChildJvm p = processes.get(id);
    return p != null && p.isAlive();
  }

  /** Starts a killed DataNode again on its port and data dir, and waits until it answers. */
  void restart(int id) throws IOException, InterruptedException {
    if (isRunning(id)) {
      throw new IllegalStateException("DataNode " + id + " still runs; kill it first");
    }
    launch(id);
    awaitAnswering(id);
  }

  /** The current processes, for a shutdown. */
  synchronized List<ChildJvm> all() {
    return List.copyOf(processes.values());
  }

  private void launch(int id) throws IOException {
    String address = address(id);
    String name;
    synchronized (this) {
      name = "datanode-" + id + "-" + launches++;
    }
    String host = placement.host(HOST_PREFIX + id);
    List<String> args =
        new ArrayList<>(ChildJvm.dataNodeArgs(id, address, dir.resolve(HOST_PREFIX + id)));
    args.add(FAULTS_FLAG);
    args.addAll(security.dataNodeFlags(id, placement.certificateHosts(host)));
    ChildJvm p = ChildJvm.start(name, dir, placement.launcher(HOST_PREFIX + id), args);
    synchronized (this) {
      processes.put(id, p);
    }
  }

  private void awaitAnswering(int id) throws IOException, InterruptedException {
    DataNodeClient client = client(id);
    ConfigNodeWaits.clusterPoll(ConfigNodeWaits.CLUSTER_WAIT, "DataNode " + id + " up")
        .untilTrue(() -> client.state() != null);
  }

  private synchronized ChildJvm process(int id) {
    ChildJvm p = processes.get(id);
    if (p == null) {
      throw new IllegalArgumentException("no such member of the cluster: DataNode " + id);
    }
    return p;
  }
}
