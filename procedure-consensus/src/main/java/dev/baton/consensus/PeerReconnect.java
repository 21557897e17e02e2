package dev.baton.consensus;

import java.io.Closeable;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerRpc;
import org.apache.ratis.server.RaftServerRpcWithProxy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a node that knows no leader from waiting out gRPC's reconnect back-off to its peers.
 *
 * <p>A node's vote requests go over one gRPC channel per peer. A channel whose connection failed
 * (the peer not started yet) waits before it connects again, 1 s at first and 1.6 times longer
 * after each failure up to 2 min, and a request sent meanwhile hangs or fails without trying. When
 * the members of a cluster start a few seconds apart (processes started together on a busy
 * machine), the first ones up had failed to reach the others several times, so they kept asking for
 * votes over channels still waiting seconds after every member was up: a whole cluster restarted
 * went 10-20 s without a leader. Ratis resets a channel's back-off only for a leader's appends to a
 * member that failed to answer (so a leader reaches a restarted member at once); while this node
 * knows no leader, this resets the back-off of its channel to every peer each half minimum election
 * timeout, so every vote round finds its peers connected or just tried.
 *
 * <p>Ratis has no API for it: the channels' holder ({@code GrpcServerProtocolClient}) is not
 * public, so its public {@code resetConnectBackoff()} is called by reflection. If that fails (a
 * Ratis without it), this logs once and stops; the node works as without it.
 */
final class PeerReconnect {
  private static final Logger LOG = LoggerFactory.getLogger(PeerReconnect.class);

  /** The method of Ratis' gRPC peer proxy that makes its channels reconnect now. */
  static final String RESET_METHOD = "resetConnectBackoff";

  /** Resets per minimum election timeout while no leader is known. */
  static final int RESETS_PER_TIMEOUT = 2;

  private static final ScheduledExecutorService RESETS =
      Executors.newSingleThreadScheduledExecutor(LeadershipManager.daemon("baton-peer-reconnect"));

  private final Supplier<Optional<RaftServer.Division>> division;
  private final RaftServerRpc rpc;
  private final long periodMillis;
  private ScheduledFuture<?> task;
  private long resets;

  PeerReconnect(
      Supplier<Optional<RaftServer.Division>> division,
      RaftServerRpc rpc,
      Duration electionTimeoutMin) {
    this.division = division;
    this.rpc = rpc;
    this.periodMillis = Math.max(1, electionTimeoutMin.toMillis() / RESETS_PER_TIMEOUT);
  }

  synchronized void start() {
    if (task == null && rpc instanceof RaftServerRpcWithProxy<?, ?>) {
      task = RESETS.scheduleWithFixedDelay(this::check, 0, periodMillis, TimeUnit.MILLISECONDS);
    }
  }

  synchronized void stop() {
    if (task != null) {
      task.cancel(false);
      task = null;
    }
  }

  /** Channel back-offs reset since start (for tests). */
  synchronized long resets() {
    return resets;
  }

  /** While no leader is known, makes the channel to every other member reconnect now. */
  synchronized void check() {
    Optional<RaftServer.Division> d = division.get();
    if (task == null || d.isEmpty() || d.get().getInfo().getLeaderId() != null) {
      return;
    }
    RaftPeerId self = d.get().getId();
    for (org.apache.ratis.protocol.RaftPeer peer : d.get().getRaftConf().getCurrentPeers()) {
      if (!peer.getId().equals(self) && !reset(self, peer.getId())) {
        stop();
        return;
      }
    }
  }

  /** Resets the back-off of the channels to {@code peer}; false if this Ratis cannot. */
  private boolean reset(RaftPeerId self, RaftPeerId peer) {
    try {
      Closeable proxy = ((RaftServerRpcWithProxy<?, ?>) rpc).getProxies().getProxy(peer);
      Method m = proxy.getClass().getMethod(RESET_METHOD);
      m.setAccessible(true);
      m.invoke(proxy);
      resets++;
      return true;
    } catch (java.io.IOException notKnown) {
      // a peer the proxies do not know yet (a configuration being changed): next time
      return true;
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn(
          "node {}: cannot reset the reconnect back-off of its Raft channels ({}); elections after"
              + " a cluster start may wait for gRPC's back-off",
          self,
          e.toString());
      return false;
    }
  }
}
