package dev.baton.confignode.partition;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.cluster.ProcessCluster;
import dev.baton.confignode.waits.ConfigNodeWaits;
import java.io.IOException;

/**
 * Watches a leader cut off from its majority, from the test process (which still reaches it): when
 * it stopped being leader ({@code role} no longer a leader role in {@code GET /api/cluster}) and
 * when its executor stopped ({@code executor.state} no longer {@code RUNNING}), each the first poll
 * that saw it (epoch ms; 0 until seen). Polls every {@link ConfigNodeWaits#LEADER_POLL} on a daemon
 * thread until both are seen or {@link #stop}.
 */
public final class StepDownWatch {
  private static final String LEADER_ROLE_PREFIX = "LEADER";
  private static final String RUNNING = "RUNNING";

  private final ProcessCluster cluster;
  private final String nodeId;
  private final Thread thread;
  private volatile boolean stopped;
  private volatile long steppedDownAt;
  private volatile long executorStoppedAt;

  private StepDownWatch(ProcessCluster cluster, String nodeId) {
    this.cluster = cluster;
    this.nodeId = nodeId;
    this.thread = new Thread(this::watch, "baton-step-down-watch-" + nodeId);
    this.thread.setDaemon(true);
  }

  /** Starts watching {@code nodeId}. */
  public static StepDownWatch start(ProcessCluster cluster, String nodeId) {
    StepDownWatch w = new StepDownWatch(cluster, nodeId);
    w.thread.start();
    return w;
  }

  private void watch() {
    while (!stopped && (steppedDownAt == 0 || executorStoppedAt == 0)) {
      try {
        JsonNode c = cluster.cluster(nodeId);
        long now = System.currentTimeMillis();
        if (steppedDownAt == 0 && !c.path("role").asText().startsWith(LEADER_ROLE_PREFIX)) {
          steppedDownAt = now;
        }
        if (executorStoppedAt == 0 && !RUNNING.equals(c.path("executor").path("state").asText())) {
          executorStoppedAt = now;
        }
        Thread.sleep(ConfigNodeWaits.LEADER_POLL.toMillis());
      } catch (IOException notAnswering) {
        // busy or unreachable for a moment: ask again
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** When the node was first seen no longer leader (epoch ms), 0 if not yet. */
  public long steppedDownAt() {
    return steppedDownAt;
  }

  /** When its executor was first seen stopped (epoch ms), 0 if not yet. */
  public long executorStoppedAt() {
    return executorStoppedAt;
  }

  /** Whether both were seen. */
  public boolean done() {
    return steppedDownAt > 0 && executorStoppedAt > 0;
  }

  /** Stops watching and waits for the thread. */
  public void stop() throws InterruptedException {
    stopped = true;
    thread.interrupt();
    thread.join(ConfigNodeWaits.CHILD_EXIT_WAIT.toMillis());
  }
}
