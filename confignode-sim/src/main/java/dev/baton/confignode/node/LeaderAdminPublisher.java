package dev.baton.confignode.node;

import dev.baton.confignode.meta.ClusterMetadata;
import dev.baton.confignode.procedures.ConfigNodeEnv;
import dev.baton.confignode.waits.ConfigNodeWaits;
import dev.baton.consensus.LeaderContext;
import dev.baton.consensus.ProcedureNode;
import dev.baton.procedure.util.Poll;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes this node's admin API address in the replicated metadata ({@link
 * ClusterMetadata#LEADER_ADMIN}) each time it becomes leader, as a metadata write fenced by the new
 * term. Followers read it to forward {@code GET /api/locks} to the leader. One background thread; a
 * publication is given up when the term moves on.
 */
final class LeaderAdminPublisher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderAdminPublisher.class);

  private final ProcedureNode<ConfigNodeEnv> node;
  private final ClusterMetadata metadata;
  private final ExecutorService thread;
  private volatile String address;

  LeaderAdminPublisher(ProcedureNode<ConfigNodeEnv> node, ClusterMetadata metadata) {
    this.node = node;
    this.metadata = metadata;
    this.thread =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "publish-admin-" + node.nodeId());
              t.setDaemon(true);
              return t;
            });
  }

  /** The admin API serves at {@code hostPort} from now on. */
  void serving(String hostPort) {
    this.address = hostPort;
  }

  /** Called when this node becomes the leader of {@code leader.term()}. */
  void becameLeader(LeaderContext leader) {
    thread.execute(() -> publish(leader));
  }

  private void publish(LeaderContext leader) {
    try {
      Poll.every(ConfigNodeWaits.ADMIN_PUBLISH_RETRY)
          .within(ConfigNodeWaits.ADMIN_PUBLISH_PATIENCE)
          .awaiting("the admin API address of term " + leader.term() + " written")
          .notYetOn(IOException.class)
          .notYetOn(RuntimeException.class)
          .untilTrue(() -> publishOnce(leader));
    } catch (TimeoutException e) {
      LOG.warn(
          "Leader {} could not publish its admin API address for term {} ({}); followers answer"
              + " GET /api/locks with 503 until the next term",
          node.nodeId(),
          leader.term(),
          e.getMessage());
    } catch (InterruptedException | IOException e) {
      // interrupted (an interrupted write is an InterruptedIOException): the publisher is closing
    }
  }

  /**
   * Writes the address once: true once written or once a later term took over (it publishes its
   * own), false while the admin API has no address yet.
   */
  private boolean publishOnce(LeaderContext leader) throws IOException {
    if (node.term() != leader.term() || !node.isLeader()) {
      return true;
    }
    String a = address;
    if (a == null) {
      return false;
    }
    metadata.write(
        leader,
        Map.of(
            ClusterMetadata.LEADER_ADMIN,
            new ClusterMetadata.LeaderAdmin(leader.nodeId(), leader.term(), a)),
        List.of());
    LOG.debug("Leader {} of term {} published its admin API {}", node, leader.term(), a);
    return true;
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
