package dev.baton.confignode.chaos;

import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.cluster.HistoryRecorder;
import dev.baton.confignode.cluster.ProcessCluster;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Periodic reads during a chaos run, on their own thread, so the history checker's read rules have
 * material: each goes to one serving node picked at random (leader or follower), asks once, and is
 * recorded in the cluster's {@link HistoryRecorder}: mostly a procedure an acknowledged submission
 * returned (the newest one half the time: the likeliest to be missing from a stale node), else the
 * metadata or the whole procedure list. Its own random stream, so the workload's choices and the
 * fault schedule stay those of the seed.
 */
final class ChaosReads extends PacedLoop {
  private static final Logger LOG = LoggerFactory.getLogger(ChaosReads.class);

  /** Pause between two reads, at least and at most. */
  static final long MIN_PACE_MILLIS = 50;

  static final long MAX_PACE_MILLIS = 250;

  /** Out of 100: the share of each read, cumulatively (a procedure, the metadata, the list). */
  static final int[] CUMULATIVE_WEIGHTS = {80, 92, 100};

  /** Out of 2: reads of the newest acknowledged procedure, the rest of a random one. */
  static final int NEWEST_SHARE = 2;

  /** Mixed into the seed so the reads' choices mirror neither the schedule nor the workload. */
  static final long SEED_SALT = 0x2545F4914F6CDD1DL;

  private final ProcessCluster cluster;

  /** One client per node address, kept: its connections are reused from read to read. */
  private final Map<String, NodeApiClient> clients = new HashMap<>();

  ChaosReads(ProcessCluster cluster, long seed) {
    super(new Random(seed ^ SEED_SALT), MIN_PACE_MILLIS, MAX_PACE_MILLIS, "read");
    this.cluster = cluster;
  }

  /** One read; one without an answer is recorded as such and paced like any other. */
  @Override
  void step() throws InterruptedException {
    try {
      read();
    } catch (IOException e) {
      LOG.debug("chaos read without an answer (recorded): {}", e.getMessage());
    }
  }

  private void read() throws IOException, InterruptedException {
    Random random = random();
    List<String> serving = cluster.servingNodes();
    if (serving.isEmpty()) {
      return;
    }
    String node = serving.get(random.nextInt(serving.size()));
    String address = cluster.http(node);
    NodeApiClient client = clients.computeIfAbsent(address, a -> cluster.directClient(node));
    HistoryRecorder history = cluster.procedures().history();
    int roll = random.nextInt(CUMULATIVE_WEIGHTS[CUMULATIVE_WEIGHTS.length - 1]);
    if (roll < CUMULATIVE_WEIGHTS[0]) {
      List<Long> ids = new ArrayList<>(cluster.procedures().acknowledged().values());
      if (ids.isEmpty()) {
        return;
      }
      ids.sort(null); // the same acknowledged ids give the same choice
      long id =
          random.nextInt(NEWEST_SHARE) == 0
              ? ids.stream().mapToLong(Long::longValue).max().orElseThrow()
              : ids.get(random.nextInt(ids.size()));
      history.readProcedure(
          node, id, () -> client.call(address, "GET", "/api/procedures/" + id, null));
    } else if (roll < CUMULATIVE_WEIGHTS[1]) {
      history.readMetadata(node, () -> client.call(address, "GET", "/api/metadata", null));
    } else {
      history.readList(node, () -> client.listProcedures(""));
    }
  }
}
