package dev.baton.consensus.bench;

import static dev.baton.consensus.bench.BenchDiagnostics.log;

import dev.baton.consensus.LeadershipManager;
import dev.baton.consensus.ProcedureNode;
import dev.baton.procedure.ProcedureExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * The benchmark's leader kills with many live procedures: each kill closes the running leader and
 * times kill → a new leader elected → {@code LEADER_RUNNING} → a probe procedure done, with the new
 * leader's rebuild time; the medians go into the report.
 */
final class FailoverPhase {
  /** How often the kill's watcher asks whether the victim still leads. */
  static final long WATCH_NANOS = 200_000;

  private final BenchCluster cluster;

  FailoverPhase(BenchCluster cluster) {
    this.cluster = cluster;
  }

  /** Kills the leader {@code kills} times; puts the figures into {@code results}. */
  void run(int kills, Map<String, Object> results) throws Exception {
    List<Long> elected = new ArrayList<>();
    List<Long> running = new ArrayList<>();
    List<Long> firstStep = new ArrayList<>();
    List<Long> rebuildMs = new ArrayList<>();
    int moves = 0;
    for (int k = 0; k < kills; k++) {
      String kill = "kill " + (k + 1);
      ProcedureNode<Object> old = cluster.awaitLeader();
      String victim = old.nodeId();
      long t0 = System.nanoTime();
      long t0Wall = System.currentTimeMillis();
      long[] closedAt = new long[1];
      Thread killer =
          new Thread(
              () -> {
                cluster.closeNode(victim);
                closedAt[0] = ms(t0);
              },
              "bench-kill");
      long[] stoppedLeadingAt = new long[] {-1};
      Thread watcher =
          new Thread(
              () -> {
                // until the victim's Raft server stops leading, it still sends heartbeats and no
                // follower can start an election: the part of a graceful close a crash skips
                while (old.isLeader() && ms(t0) < BenchCluster.WAIT.toMillis()) {
                  LockSupport.parkNanos(WATCH_NANOS);
                }
                stoppedLeadingAt[0] = ms(t0);
              },
              "bench-kill-watch");
      watcher.start();
      killer.start();
      ProcedureNode<Object> first =
          cluster.awaitValue(
              kill + ": a leader other than " + victim, () -> cluster.otherLeader(victim, false));
      elected.add(ms(t0));
      // whichever node leads once one runs: under load the first elected may lose leadership
      // before it runs its executor, and then another node carries on
      ProcedureNode<Object> leader =
          cluster.awaitValue(
              kill + ": a LEADER_RUNNING leader other than " + victim,
              () -> cluster.otherLeader(victim, true));
      running.add(ms(t0));
      long probe =
          cluster.await(
              kill + ": submission of the probe on " + leader.nodeId(),
              leader.submit(new BenchProcedures.Noop3(), null));
      ProcedureNode<Object> ran = awaitProbe(kill, victim, probe);
      firstStep.add(ms(t0));
      LeadershipManager.Recovery recovery = ran.lastRecovery().orElseThrow();
      rebuildMs.add(recovery.rebuildTime().toMillis());
      killer.join();
      watcher.join();
      cluster.startNode(victim);
      long caughtUpMs = awaitCaughtUp(kill, victim, ran);
      String path = victim + " -> " + first.nodeId();
      if (first != ran) {
        moves++;
        path += " -> " + ran.nodeId() + " (leadership moved again during the failover)";
      }
      log(
          "%s: %s, elected %d ms, ready %d ms, running %d ms, probe done %d ms, rebuild of %d"
              + " procedures %d ms (%s); the victim stopped leading after %d ms, its close()"
              + " returned after %d ms; restarted, it caught up in %d ms",
          kill,
          path,
          elected.get(k),
          recovery.startedAtMillis() - t0Wall,
          running.get(k),
          firstStep.get(k),
          recovery.procedures(),
          rebuildMs.get(k),
          recovery.phases(),
          stoppedLeadingAt[0],
          closedAt[0],
          caughtUpMs);
    }
    results.put("failoverExtraLeaderChanges", moves);
    results.put("failoverElectedMedianMs", median(elected));
    results.put("failoverRunningMedianMs", median(running));
    results.put("failoverProbeDoneMedianMs", median(firstStep));
    results.put("failoverProbeDoneMaxMs", max(firstStep));
    results.put("rebuildMedianMs", median(rebuildMs));
    int liveCount = ((Number) results.get("liveProcedures")).intValue();
    double rebuild = median(rebuildMs);
    results.put("rebuildProceduresPerSecond", rebuild == 0 ? 0 : liveCount * 1000.0 / rebuild);
  }

  /**
   * Waits until the restarted victim has applied what the running leader had applied when it came
   * back, and returns how long that took. The next kill then starts from three members level with
   * each other, as a failover of a healthy cluster does. Without the wait, a kill soon after the
   * restart can find the victim still behind (the leader's gRPC channel to it reconnects with a
   * backoff): it loses its pre-vote for its older log, and that request resets the timer of the one
   * member that could win, so the election takes a second timeout.
   */
  private long awaitCaughtUp(String kill, String victim, ProcedureNode<Object> leader) {
    long t0 = System.nanoTime();
    long target = leader.metrics().appliedIndex();
    ProcedureNode<Object> restarted = cluster.nodes().get(victim);
    cluster.awaitTrue(
        kill + ": restarted " + victim + " applied up to index " + target,
        () -> restarted.metrics().appliedIndex() >= target);
    return ms(t0);
  }

  /**
   * Waits until the probe finished on the running leader; if that leader's executor stops first
   * (leadership moved), waits on the next running leader's. Returns the node that ran it.
   */
  private ProcedureNode<Object> awaitProbe(String kill, String victim, long probe)
      throws InterruptedException {
    String what = kill + ": probe " + probe + " finished";
    long deadline = System.nanoTime() + BenchCluster.WAIT.toNanos();
    while (true) {
      ProcedureNode<Object> leader =
          cluster.awaitValue(what + " (a running leader)", () -> cluster.otherLeader(victim, true));
      Optional<ProcedureExecutor<Object>> executor = leader.executor();
      if (executor.isEmpty()) {
        continue;
      }
      try {
        executor.get().whenFinished(probe).get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        return leader;
      } catch (ExecutionException stopped) {
        log(
            "%s: the executor of %s stopped (%s); waiting on the next leader",
            kill, leader, stopped);
      } catch (TimeoutException e) {
        throw cluster.gaveUp(what + " on " + leader.nodeId(), null);
      }
    }
  }

  private static long ms(long t0) {
    return (System.nanoTime() - t0) / 1_000_000;
  }

  private static double median(List<Long> v) {
    long[] a = v.stream().mapToLong(Long::longValue).sorted().toArray();
    return a.length == 0 ? 0 : a[a.length / 2];
  }

  private static double max(List<Long> v) {
    return v.stream().mapToLong(Long::longValue).max().orElse(0);
  }
}
