package dev.baton.confignode.partition;

import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.cluster.ClusterProcedures;
import dev.baton.confignode.cluster.ProcessCluster;
import dev.baton.confignode.waits.ConfigNodeWaits;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A steady load during a partition: one submission after another of a {@code CreateDatabase} (a
 * procedure with DataNode steps, so a new leader's first step shows in the DataNodes' ledgers),
 * through the cluster's nonce bookkeeping, to the nodes a client would still reach the majority
 * through; the time of each acknowledgement is kept. Runs on a daemon thread until {@link #stop}; a
 * submission in flight then finishes (retried with its nonce until acknowledged).
 */
final class PartitionLoad {
  private final ProcessCluster cluster;
  private final NodeApiClient via;
  private final String namePrefix;
  private final Thread thread;
  private final List<Ack> acks = new ArrayList<>();
  private volatile boolean stopped;
  private volatile IOException failure;

  PartitionLoad(ProcessCluster cluster, NodeApiClient via, String namePrefix) {
    this.cluster = cluster;
    this.via = via;
    this.namePrefix = namePrefix;
    this.thread = new Thread(this::run, "baton-partition-load");
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  private void run() {
    int n = 0;
    while (!stopped) {
      try {
        long nonce = cluster.procedures().nextNonce();
        long procId =
            cluster
                .procedures()
                .submit(
                    "CreateDatabase", ClusterProcedures.args("name", namePrefix + n++), nonce, via);
        synchronized (this) {
          acks.add(new Ack(System.currentTimeMillis(), procId));
        }
      } catch (IOException e) {
        failure = e;
        return;
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** An acknowledged submission: when (epoch ms) and its procId. */
  record Ack(long at, long procId) {}

  /** Acknowledgements between {@code from} and {@code to} (epoch ms). */
  synchronized int ackedBetween(long from, long to) {
    return (int) acks.stream().filter(a -> a.at() >= from && a.at() <= to).count();
  }

  /** The first acknowledgement at or after {@code from}, if any yet. */
  synchronized Optional<Ack> firstAckAfter(long from) {
    return acks.stream().filter(a -> a.at() >= from).findFirst();
  }

  /**
   * Stops after the submission in flight, and waits for it.
   *
   * @throws IOException if a submission failed for good (no node took it within the patience)
   */
  void stop() throws IOException, InterruptedException {
    stopped = true;
    thread.join(ConfigNodeWaits.SUBMIT_PATIENCE.multipliedBy(2).toMillis());
    if (failure != null) {
      throw failure;
    }
  }
}
