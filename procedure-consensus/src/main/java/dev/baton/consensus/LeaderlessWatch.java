package dev.baton.consensus;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.thirdparty.com.google.protobuf.TextFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches whether a node knows a leader, and says so clearly when it has known none for long: a
 * WARN line per {@link #TIMEOUTS_BEFORE_WARNING} election timeouts without a leader, with the
 * node's term, role, log position and Ratis' own view of the election (time since it last heard a
 * leader), and an INFO line when a leader is known again. Nothing else can safely be done by the
 * node alone (Raft elects whoever a majority votes for), so this is for the operator and for tests:
 * on a machine starved of CPU it tells "no quorum reachable" and "elections keep failing" apart
 * from a silent hang.
 *
 * <p>Checks run on one daemon thread shared by every node of the process, once per (maximum)
 * election timeout; a check reads the division's state and never blocks Ratis.
 */
final class LeaderlessWatch {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderlessWatch.class);

  /** Election timeouts (the maximum) without a known leader before a warning, and between two. */
  static final int TIMEOUTS_BEFORE_WARNING = 10;

  /**
   * Why a member with an empty log may wait for ever: Ratis counts no vote of a member whose log is
   * empty once the group committed entries (it cannot tell "never received" from "disk wiped").
   */
  static final String EMPTY_LOG_HINT =
      "; this node's log is empty and Ratis does not count its vote: the group elects a leader only"
          + " when members holding the log are a majority again (bring back the lost member)";

  private static final ScheduledExecutorService CHECKS =
      Executors.newSingleThreadScheduledExecutor(
          LeadershipManager.daemon("baton-leaderless-watch"));

  private final String nodeId;
  private final Supplier<Optional<RaftServer.Division>> division;
  private final LongSupplier leadersSeen;
  private final long periodMillis;
  private final long warnAfterNanos;

  private ScheduledFuture<?> task;
  private long leaderlessSince = -1;
  private long lastWarning;
  private long warnings;

  LeaderlessWatch(
      String nodeId,
      Supplier<Optional<RaftServer.Division>> division,
      LongSupplier leadersSeen,
      Duration electionTimeoutMax) {
    this.nodeId = nodeId;
    this.division = division;
    this.leadersSeen = leadersSeen;
    this.periodMillis = electionTimeoutMax.toMillis();
    this.warnAfterNanos = electionTimeoutMax.multipliedBy(TIMEOUTS_BEFORE_WARNING).toNanos();
  }

  synchronized void start() {
    if (task == null) {
      task =
          CHECKS.scheduleWithFixedDelay(
              this::check, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    }
  }

  synchronized void stop() {
    if (task != null) {
      task.cancel(false);
      task = null;
    }
    leaderlessSince = -1;
  }

  /** How long this node has known no leader, as of its last check; empty while it knows one. */
  synchronized Optional<Duration> leaderlessFor() {
    return leaderlessSince < 0
        ? Optional.empty()
        : Optional.of(Duration.ofNanos(System.nanoTime() - leaderlessSince));
  }

  /** Warnings logged since start (for tests). */
  synchronized long warnings() {
    return warnings;
  }

  /** One look at the division: start, continue or end a leaderless period. */
  synchronized void check() {
    Optional<RaftServer.Division> d = division.get();
    if (task == null || d.isEmpty()) {
      return;
    }
    DivisionInfo info = d.get().getInfo();
    long now = System.nanoTime();
    if (info.getLeaderId() != null) {
      if (leaderlessSince >= 0 && now - leaderlessSince >= warnAfterNanos) {
        LOG.info(
            "node {}: leader {} known again at term {} after {} ms without one",
            nodeId,
            info.getLeaderId(),
            info.getCurrentTerm(),
            TimeUnit.NANOSECONDS.toMillis(now - leaderlessSince));
      }
      leaderlessSince = -1;
      return;
    }
    if (leaderlessSince < 0) {
      leaderlessSince = now;
      lastWarning = now;
      return;
    }
    if (now - lastWarning >= warnAfterNanos) {
      lastWarning = now;
      warnings++;
      TermIndex last = d.get().getRaftLog().getLastEntryTermIndex();
      LOG.warn(
          "node {}: no leader known for {} ms (term {}, {}, last entry {}, committed {}, {} leaders"
              + " seen since start){}; Ratis: {}",
          nodeId,
          TimeUnit.NANOSECONDS.toMillis(now - leaderlessSince),
          info.getCurrentTerm(),
          info.getCurrentRole(),
          last,
          d.get().getRaftLog().getLastCommittedIndex(),
          leadersSeen.getAsLong(),
          last == null ? EMPTY_LOG_HINT : "",
          TextFormat.shortDebugString(info.getRoleInfoProto()));
    }
  }
}
