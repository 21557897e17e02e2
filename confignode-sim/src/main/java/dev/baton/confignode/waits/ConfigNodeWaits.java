package dev.baton.confignode.waits;

import dev.baton.procedure.util.Poll;
import java.io.IOException;
import java.time.Duration;

/**
 * The waits and timeouts of confignode-sim, by the part that waits: poll intervals, retry pauses,
 * request timeouts and deadlines. Not here: the {@code cli} package's own, settings a user passes
 * (RaftSettings, a client built with its own timeout), and what is paced rather than awaited (the
 * chaos workload's pace, the fault schedule's gaps and fault lengths, injected DataNode latency),
 * which stay with the schedule and the workload.
 */
public final class ConfigNodeWaits {
  // The ConfigNode process (package node).

  /** How long registration of start-up DataNodes keeps trying, elections included. */
  public static final Duration REGISTRATION_PATIENCE = Duration.ofMinutes(2);

  /** Pause between two attempts to register a start-up DataNode. */
  public static final Duration REGISTRATION_RETRY = Duration.ofMillis(500);

  /**
   * How long a new leader keeps trying to publish its admin API address (a write can fail while its
   * log settles); it stops sooner when its term ends.
   */
  public static final Duration ADMIN_PUBLISH_PATIENCE = Duration.ofSeconds(10);

  /** Pause between two attempts to publish the leader's admin API address. */
  public static final Duration ADMIN_PUBLISH_RETRY = Duration.ofMillis(250);

  /** How often a flow waiting on a procedure through a node asks whether it finished. */
  public static final Duration FLOW_AWAIT_POLL = Duration.ofMillis(20);

  // The admin API (package admin).

  /**
   * How long an admin API request waits for the cluster (a leader, a majority) before it answers
   * 503; also how long the flow routes wait for one call to the cluster.
   */
  public static final Duration ADMIN_CLUSTER_CALL = Duration.ofSeconds(15);

  /**
   * How long {@code GET /api/procedures/ID?waitFor=finished} waits without a {@code timeout}
   * parameter.
   */
  public static final Duration PROCEDURE_WAIT_DEFAULT = Duration.ofSeconds(10);

  /**
   * The longest {@code timeout} of {@code GET /api/procedures/ID?waitFor=finished}: below the admin
   * API's idle timeout, which would cut a connection that waits longer without a byte.
   */
  public static final Duration PROCEDURE_WAIT_MAX = Duration.ofSeconds(20);

  // Clients (packages client and datanode).

  /**
   * How long a client of the admin API waits for one answer: longer than {@link
   * #ADMIN_CLUSTER_CALL}, so a node's own 503 arrives before the client gives up.
   */
  public static final Duration API_REQUEST_TIMEOUT = Duration.ofSeconds(20);

  /**
   * How long a client of the admin API waits for a connection: the TCP connect and, over HTTPS, the
   * TLS handshake. A burst of new connections (hundreds of clients starting to wait at once) queues
   * their handshakes for the node's CPU; with 2 s here, clients gave up on handshakes the node was
   * doing, tried the next node, and every retry cost another handshake, until the nodes did little
   * else. A node that is down refuses at once whatever this is.
   */
  public static final Duration API_CONNECT_TIMEOUT = Duration.ofSeconds(10);

  /** How long a client of the admin API retries a read while no node can serve it. */
  public static final Duration API_READ_PATIENCE = Duration.ofSeconds(60);

  /** Pause between two attempts of such a read. */
  public static final Duration API_READ_RETRY = Duration.ofMillis(200);

  /**
   * How long a watcher of a node's events stream waits for any frame before it counts the stream
   * broken and resumes on the next node: more than two of the stream's heartbeats (15 s apart).
   */
  public static final Duration EVENT_STREAM_SILENCE = Duration.ofSeconds(40);

  /** How long a DataNode client waits for a TCP connection. */
  public static final Duration DATANODE_CONNECT_TIMEOUT = Duration.ofSeconds(2);

  /** How long a DataNode client waits for an answer, unless built with another timeout. */
  public static final Duration DATANODE_REQUEST_TIMEOUT = Duration.ofSeconds(10);

  // ConfigNode membership procedures (AddConfigNode, RemoveConfigNode, ReplaceConfigNode).

  /**
   * How long one membership step waits for the group's configuration change, the new member's
   * catch-up (a snapshot of every live procedure) included.
   */
  public static final Duration MEMBERSHIP_CHANGE_WAIT = Duration.ofMinutes(10);

  /** How long a membership step waits for a leadership transfer (the target's election). */
  public static final Duration LEADERSHIP_TRANSFER_WAIT = Duration.ofSeconds(15);

  /**
   * How long a membership change waits for the membership lock another change holds before it is
   * refused: changes run one at a time, and a second one fails at once with who holds the lock.
   */
  public static final Duration MEMBERSHIP_LOCK_WAIT = Duration.ofSeconds(1);

  // The process cluster (package cluster).

  /** How long a cluster may take to start, elect and recover; generous for a loaded machine. */
  public static final Duration CLUSTER_WAIT = Duration.ofSeconds(90);

  /** How often {@link #clusterPoll} looks. */
  public static final Duration CLUSTER_POLL = Duration.ofMillis(50);

  /** How often a running leader is looked for: short, since drills time the failover by it. */
  public static final Duration LEADER_POLL = Duration.ofMillis(20);

  /** How long a submission is retried while no node can take it (an election, a restart). */
  public static final Duration SUBMIT_PATIENCE = Duration.ofSeconds(60);

  /** How long to wait for a killed child process to be gone, or for a signal command to return. */
  public static final Duration CHILD_EXIT_WAIT = Duration.ofSeconds(10);

  // The drill (package drill).

  /** How long the drill's whole workload may take to reach terminal states. */
  public static final Duration DRILL_FINISH_WAIT = Duration.ofMinutes(5);

  /** Pause between two attempts of a drill submission. */
  public static final Duration DRILL_SUBMIT_RETRY = Duration.ofMillis(20);

  /** How often the drill reads the procedure list while it waits for the workload to finish. */
  public static final Duration DRILL_LIST_POLL = Duration.ofMillis(100);

  // The bench (package bench).

  /** How long one bench procedure may take before the bench gives up. */
  public static final Duration BENCH_PROCEDURE_PATIENCE = Duration.ofSeconds(60);

  /**
   * How long the bench goes on while every operation of a phase fails (none succeeded since, and
   * some failed): a leader change takes seconds, so half a minute without one success is a cluster
   * that cannot serve, and the bench stops rather than measure nothing.
   */
  public static final int BENCH_ALL_FAILING_SECONDS = 30;

  /** {@link #BENCH_ALL_FAILING_SECONDS} (a number too, for the bench command's help). */
  public static final Duration BENCH_ALL_FAILING_LIMIT =
      Duration.ofSeconds(BENCH_ALL_FAILING_SECONDS);

  // Chaos (package chaos).

  /** How long the quiet period after the faults may last at most. */
  public static final Duration CHAOS_QUIET_LIMIT = Duration.ofSeconds(120);

  /** How often the running leader is looked up for the chaos timeline. */
  public static final Duration CHAOS_LEADER_WATCH = Duration.ofMillis(250);

  /**
   * How long the chaos workload's thread may take to stop: a submission in flight is retried for up
   * to {@link #SUBMIT_PATIENCE}, twice that leaves room for its last attempt.
   */
  public static final Duration CHAOS_WORKLOAD_STOP = SUBMIT_PATIENCE.multipliedBy(2);

  private ConfigNodeWaits() {}

  /**
   * A wait on a cluster in flux, for whatever waits on a process cluster (tests, the drill, the
   * bench): looks every {@link #CLUSTER_POLL}; a failure of a look means "not yet" (a node
   * starting, an election); after {@code timeout} an IOException names {@code what} and the last
   * failure.
   */
  public static Poll<IOException> clusterPoll(Duration timeout, String what) {
    return clusterPoll(CLUSTER_POLL, timeout, what);
  }

  /** As {@link #clusterPoll(Duration, String)}, looking every {@code interval}. */
  public static Poll<IOException> clusterPoll(Duration interval, Duration timeout, String what) {
    return Poll.every(interval)
        .within(timeout)
        .awaiting(what)
        .notYetOn(Exception.class)
        .onTimeout(expiry -> new IOException(expiry.message(), expiry.lastFailure()));
  }
}
