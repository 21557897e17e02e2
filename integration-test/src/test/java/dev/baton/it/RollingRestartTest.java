package dev.baton.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.cli.ConfigNodeCli;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.cluster.ClusterProcedures;
import dev.baton.confignode.cluster.HistoryRecorder;
import dev.baton.confignode.cluster.InvariantCheck;
import dev.baton.confignode.cluster.ProcessCluster;
import dev.baton.confignode.history.History;
import dev.baton.confignode.history.HistoryChecker;
import dev.baton.confignode.history.HistoryViolation;
import dev.baton.confignode.history.Operation;
import dev.baton.confignode.history.OperationKind;
import dev.baton.confignode.history.ProcedureSeen;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code confignode-sim rolling-restart} on real processes (3 ConfigNodes, one DataNode, the admin
 * API in plain HTTP with no tokens, as the client commands speak it): the command's restart hook
 * sends the node's process a SIGTERM ({@code kill {pid}}) and a supervisor of the test's (as
 * systemd with {@code Restart=always} would) starts any ConfigNode whose process exited. A node
 * that does not come back stops the command with a clear error; under a running workload a rolling
 * restart loses no acknowledged submission, and the executor, as the history of the workload's
 * reads shows it, finishes nothing for no longer than one failover per node.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class RollingRestartTest {
  /** The hook: a SIGTERM to the node's process, which stops it cleanly. */
  private static final String STOP_COMMAND = "kill {pid}";

  /** How often the supervisor looks for an exited ConfigNode. */
  private static final Duration SUPERVISOR_POLL = Duration.ofMillis(100);

  /**
   * How long one failover may keep the executor from finishing anything: an election (at most two
   * maximum election timeouts of 600 ms) and the new leader's recovery, with room for a loaded
   * 2-core machine.
   */
  private static final Duration ONE_FAILOVER = Duration.ofSeconds(5);

  /** A pause between two finished workload procedures longer than this counts as an outage. */
  private static final Duration OUTAGE = Duration.ofSeconds(1);

  /** The node timeout of the run that must fail: the node never comes back. */
  private static final int SHORT_NODE_TIMEOUT_SECONDS = 5;

  /** The node timeout of the run under load. */
  private static final int NODE_TIMEOUT_SECONDS = 60;

  private static final int NODES = 3;

  @Test
  void rollingRestartUnderLoadLosesNothingAndMovesTheExecutorOnce() throws Exception {
    try (ProcessCluster cluster =
        ProcessCluster.create(
            "baton-rolling", Boolean.getBoolean(SharedClusterTest.KEEP_DIR), List.of(), false)) {
      cluster.startDataNodes(1);
      cluster.startConfigNodes(NODES);
      // the command needs every member's admin API; a running leader says nothing of the others'
      cluster.awaitEveryNodeHoldsTheLog();
      String leader = cluster.leader();
      Supervisor supervisor = new Supervisor(cluster);

      // a node that does not come back stops the command at it, the others untouched
      String follower =
          cluster.nodeIds().stream().filter(id -> !id.equals(leader)).findFirst().get();
      List<String> order = new ArrayList<>(List.of(follower));
      cluster.nodeIds().stream().filter(id -> !id.equals(follower)).forEach(order::add);
      Cli stuck = rollingRestart(cluster, order, SHORT_NODE_TIMEOUT_SECONDS);
      assertEquals(7, stuck.exit(), stuck::toString);
      assertTrue(
          stuck.err().contains("stopped at " + follower + ": " + follower + " did not come back"),
          stuck::toString);
      assertTrue(cluster.hasExited(follower), follower + " stays down: nothing restarts it");
      for (String other : order.subList(1, order.size())) {
        assertTrue(cluster.isServing(other), other + " was not restarted");
      }
      supervisor.start();
      cluster.awaitAnswering(follower);
      int restartsBefore = supervisor.restarts.get();

      Map<String, Long> pids = new HashMap<>();
      cluster.nodeIds().forEach(id -> pids.put(id, cluster.pid(id)));
      String first = cluster.leader();
      Workload workload = new Workload(cluster);
      workload.start();
      Cli done;
      try {
        await("the workload finishing procedures")
            .atMost(Drills.REACH)
            .pollInterval(Drills.POLL)
            .until(() -> workload.finished.get() >= NODES);
        done = rollingRestart(cluster, cluster.nodeIds(), NODE_TIMEOUT_SECONDS);
      } finally {
        workload.stop();
        supervisor.stop();
      }

      assertEquals(0, done.exit(), done::toString);
      List<String> lines = done.out().lines().filter(l -> l.startsWith("cn")).toList();
      assertEquals(NODES, lines.size(), done::toString);
      assertTrue(
          lines.get(NODES - 1).startsWith(first + " (leader: handed leadership to "),
          "the leader last, after a transfer: " + done);
      for (String id : cluster.nodeIds()) {
        assertNotEquals(pids.get(id), cluster.pid(id), id + " runs in a new process");
      }
      assertEquals(NODES, supervisor.restarts.get() - restartsBefore, "one restart per node");
      assertTrue(workload.failure.get() == null, () -> "workload: " + workload.failure.get());

      cluster.procedures().awaitAllFinished(Drills.FINISH);
      InvariantCheck.Result r =
          InvariantCheck.check(
              cluster.api(), Drills.dataNodes(cluster), cluster.procedures().acknowledged(), true);
      assertTrue(r.ok(), r::describe);
      History history =
          cluster
              .procedures()
              .history()
              .history(HistoryRecorder.finalState(cluster.api(), Drills.dataNodes(cluster)));
      List<HistoryViolation> violations = HistoryChecker.check(history);
      assertTrue(violations.isEmpty(), () -> HistoryChecker.summary(history, violations));

      List<Long> gaps = finishGaps(history);
      List<Long> outages = gaps.stream().filter(g -> g > OUTAGE.toMillis()).toList();
      long longest = gaps.stream().mapToLong(Long::longValue).max().orElse(0);
      long total = outages.stream().mapToLong(Long::longValue).sum();
      System.out.printf(
          "rolling restart of %d ConfigNodes under load: %s%n  %d workload procedures finished,"
              + " longest pause between two finishes %d ms, outages (> %d ms) %s ms, total %d ms%n",
          NODES,
          done.out().strip().replace("\n", "\n  "),
          workload.finished.get(),
          longest,
          OUTAGE.toMillis(),
          outages,
          total);
      assertTrue(
          longest <= ONE_FAILOVER.toMillis(),
          "the executor finished nothing for " + longest + " ms: " + outages);
      assertTrue(
          total <= NODES * ONE_FAILOVER.toMillis(),
          "outages " + outages + " add up to more than one failover per node");
    }
  }

  /**
   * The pauses (ms) between the moments the workload first saw one of its procedures finished (the
   * workload runs only around the rolling restart).
   */
  private static List<Long> finishGaps(History history) {
    Set<Long> seen = new HashSet<>();
    List<Long> finishes = new ArrayList<>();
    for (Operation op : history.operations()) {
      if (op.kind() != OperationKind.READ_PROCEDURE || !op.ok()) {
        continue;
      }
      long procId = op.request().procId();
      Optional<ProcedureSeen> p = op.reply().seen(procId);
      if (p.isPresent() && p.get().finished() && seen.add(procId)) {
        finishes.add(op.endNanos());
      }
    }
    List<Long> sorted = finishes.stream().sorted().toList();
    List<Long> out = new ArrayList<>();
    for (int i = 1; i < sorted.size(); i++) {
      out.add(TimeUnit.NANOSECONDS.toMillis(sorted.get(i) - sorted.get(i - 1)));
    }
    return out;
  }

  /** Runs {@code rolling-restart} in this JVM against the nodes in {@code order}. */
  private static Cli rollingRestart(ProcessCluster cluster, List<String> order, int nodeTimeout) {
    List<String> addresses = order.stream().map(cluster::http).toList();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        ConfigNodeCli.run(
            new String[] {
              "rolling-restart",
              "--restart-command",
              STOP_COMMAND,
              "--node-timeout",
              Integer.toString(nodeTimeout),
              "--cluster",
              String.join(",", addresses)
            },
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Cli(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** What a command printed and how it ended. */
  private record Cli(int exit, String out, String err) {}

  /**
   * Starts again every ConfigNode whose process exited, as a service manager would; counts the
   * restarts.
   */
  private static final class Supervisor {
    private final ProcessCluster cluster;
    private final AtomicInteger restarts = new AtomicInteger();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

    Supervisor(ProcessCluster cluster) {
      this.cluster = cluster;
    }

    void start() {
      timer.scheduleWithFixedDelay(
          this::restartExited, 0, SUPERVISOR_POLL.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void restartExited() {
      for (String id : cluster.nodeIds()) {
        if (cluster.hasExited(id)) {
          try {
            cluster.restart(id);
            restarts.incrementAndGet();
          } catch (java.io.IOException | RuntimeException e) {
            throw new IllegalStateException("could not restart " + id, e);
          }
        }
      }
    }

    void stop() throws InterruptedException {
      timer.shutdown();
      timer.awaitTermination(ProcessCluster.CLUSTER_WAIT.toSeconds(), TimeUnit.SECONDS);
    }
  }

  /**
   * One client per ConfigNode, each asking only its node (a client of a node being restarted waits
   * for it; the others go on): submits a one-step Noop with a nonce, reads it until it finished
   * (every submission and read in the cluster's history), and again, until stopped.
   */
  private static final class Workload {
    private final ProcessCluster cluster;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger finished = new AtomicInteger();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private final List<Thread> threads = new ArrayList<>();

    Workload(ProcessCluster cluster) {
      this.cluster = cluster;
      for (String id : cluster.nodeIds()) {
        threads.add(new Thread(() -> run(id), "rolling-workload-" + id));
      }
    }

    void start() {
      threads.forEach(Thread::start);
    }

    private void run(String node) {
      NodeApiClient via = cluster.client(cluster.http(node));
      HistoryRecorder history = cluster.procedures().history();
      while (!stop.get()) {
        try {
          long nonce = cluster.procedures().nextNonce();
          long id =
              cluster.procedures().submit("Noop", ClusterProcedures.args("steps", 1), nonce, via);
          JsonNode done =
              await("procedure " + id + " finished, read on " + node)
                  .atMost(Drills.FINISH)
                  .pollInterval(Drills.POLL)
                  .ignoreExceptions()
                  .until(
                      () -> history.readProcedure(node, id, () -> via.get("/api/procedures/" + id)),
                      p -> p.path("finished").asBoolean());
          if (!"SUCCESS".equals(done.path("state").asText())) {
            throw new IllegalStateException("procedure " + id + " ended " + done);
          }
          finished.incrementAndGet();
        } catch (InterruptedException e) {
          return;
        } catch (Exception e) {
          failure.compareAndSet(null, e);
          return;
        }
      }
    }

    void stop() throws InterruptedException {
      stop.set(true);
      for (Thread t : threads) {
        t.join(Drills.FINISH.toMillis());
      }
    }
  }
}
