package dev.baton.consensus;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One daemon thread of a node ({@code baton-<node>-<purpose>}) that runs what it is handed in the
 * order it was handed, never on the caller's thread: a task that throws is logged and the later
 * ones still run; once shut down, new tasks are dropped (the node is closing) and those queued
 * still run.
 */
final class OrderedDelivery {
  private static final Logger LOG = LoggerFactory.getLogger(OrderedDelivery.class);

  private final String nodeId;
  private final ExecutorService thread;

  OrderedDelivery(String nodeId, String purpose) {
    this.nodeId = nodeId;
    this.thread =
        Executors.newSingleThreadExecutor(
            LeadershipManager.daemon("baton-" + nodeId + "-" + purpose));
  }

  /** Runs {@code task} ({@code what}, for the log) after the tasks handed before it. */
  void deliver(String what, Runnable task) {
    try {
      thread.execute(() -> run(what, task));
    } catch (RejectedExecutionException closed) {
      LOG.debug("Node {}: {} not delivered, the node is closed", nodeId, what);
    }
  }

  private void run(String what, Runnable task) {
    try {
      task.run();
    } catch (RuntimeException e) {
      LOG.error("Node {}: {} failed; later ones are still delivered", nodeId, what, e);
    }
  }

  /** Takes no further tasks; those queued still run. */
  void shutdown() {
    thread.shutdown();
  }
}
