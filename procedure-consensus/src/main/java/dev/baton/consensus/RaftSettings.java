package dev.baton.consensus;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * Raft tuning of a procedure node, turned into Ratis properties.
 *
 * @param electionTimeoutMin lower bound of the randomized election timeout
 * @param electionTimeoutMax upper bound
 * @param requestTimeout how long a submission or query may wait for a leader and a majority
 * @param snapshotEvery applied entries between automatic snapshots (the log is purged behind each
 *     snapshot, also one taken on request)
 * @param logSegmentBytes size of a Raft log segment; only whole closed segments are purged
 */
public record RaftSettings(
    Duration electionTimeoutMin,
    Duration electionTimeoutMax,
    Duration requestTimeout,
    long snapshotEvery,
    long logSegmentBytes) {

  /**
   * Election timeouts long enough to ride out the pauses of a busy machine shared with other
   * processes: shorter ones (Ratis' own 150/300 ms) fail over sooner, but replace live leaders that
   * only paused and let a cold-started cluster go through several leaders in a row. A failover
   * takes about one to two times the minimum. Operators pick their own with {@link
   * #withElectionTimeouts} (the ConfigNode's {@code --election-timeout-ms MIN,MAX}).
   */
  public static final Duration DEFAULT_ELECTION_TIMEOUT_MIN = Duration.ofMillis(300);

  /** Upper bound of the default randomized election timeout; see the lower bound. */
  public static final Duration DEFAULT_ELECTION_TIMEOUT_MAX = Duration.ofMillis(600);

  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);

  /**
   * Applied entries between two automatic snapshots. It bounds what a member applies again after a
   * crash (the log behind its newest snapshot); a whole cluster killed and started again has no
   * ready leader before that is applied, all members replaying at once on cold JVMs at about a
   * millisecond of CPU an entry on a loaded 2-core machine. Snapshots are written in the background
   * (the apply thread only freezes the table), so a short interval costs the apply path nothing.
   */
  public static final long DEFAULT_SNAPSHOT_EVERY = 1_000;

  public static final long DEFAULT_LOG_SEGMENT_BYTES = 8L << 20;

  /**
   * How long a leader that stepped down for lost heartbeats of a majority waits before it may stand
   * for election again, in (maximum) election timeouts. Ratis' default is a fixed 10 s, which on a
   * starved machine stalls the whole group: a leader that misses its followers' answers for one
   * election timeout steps down, and when the other live member's log is behind (a restarted node,
   * or one that missed the leader's last entry) only the stepped-down node can win, so no leader
   * exists for 10 s, again at every such step-down. Two timeouts still let a healthier member win
   * first; with pre-vote a stepped-down node cannot disrupt a leader the others follow.
   */
  static final int STEP_DOWN_WAIT_TIMEOUTS = 2;

  /**
   * Whether a leader answers a read index (its own reads, and a follower's request for one) at once
   * while its lease lasts, instead of confirming its leadership with a heartbeat round to a
   * majority per read. The lease runs from the send time of the newest heartbeat a majority
   * answered for Ratis' lease ratio (0.9) of the minimum election timeout; a follower stands for
   * election only after a whole minimum election timeout without the leader, so no new leader can
   * commit while the lease lasts, and a deposed or paused leader, whose lease has run out, falls
   * back to the heartbeat round, which a leader in a minority cannot complete: it answers no read,
   * only an error once the request timeout passes. Saves every read (a follower's as well) a round
   * trip.
   */
  static final boolean LEADER_LEASE_READS = true;

  /**
   * Whether a ReadIndex read waits for a heartbeat round to a majority before it is answered when
   * the leader holds no lease (Ratis' default, kept explicitly: it is what keeps a deposed leader
   * from answering).
   */
  static final boolean READ_HEARTBEAT_CHECK = true;

  /**
   * Fewest log entries between two purges. Ratis skips a purge whose snapshot index is closer than
   * this to the previous purge, and counts a purge that found no closed segment to delete as done
   * at the snapshot's index: with a gap as large as the snapshot interval, a snapshot taken on
   * request (or one of a restarted member) left the whole log behind it on disk. Snapshots come no
   * more often than {@code snapshotEvery} entries on their own, so every snapshot purges.
   */
  static final int PURGE_GAP_ENTRIES = 1;

  /**
   * (Maximum) election timeouts a member being added may stay silent before the leader gives up the
   * change (Ratis' default is 3): a node just started, or busy installing a snapshot on a loaded
   * machine, answers late, and giving up fails the whole membership change.
   */
  static final int STAGING_TIMEOUTS = 10;

  /** Snapshots kept on disk: the newest, and one before it while a follower may still fetch it. */
  static final int SNAPSHOTS_RETAINED = 2;

  /**
   * Whether Ratis writes the commit index into the log (a metadata entry after each commit, on
   * every member). Off: it costs each commit a second log write. A restarted member then learns the
   * commit index from the leader before it applies what its log holds beyond its snapshot.
   *
   * <p>Off needs every apply to complete without waiting ({@link AbortOutcomes}): Ratis counts an
   * entry as applied for reads only when its apply future completes, so an apply that waited (say,
   * for an executor being rebuilt) would leave linearizable reads on a recovering leader without an
   * answer, and no commit-index entries would follow to let the applied index move on.
   */
  static final boolean LOG_COMMIT_INDEX = false;

  /**
   * Whether a follower chains the log appends of the leader's requests on one shared future (Ratis'
   * {@code raft.server.log.append-entries.compose.enabled}, on by default in 3.3.0). Off: each
   * request appends to the log itself, and a request whose append fails fails alone. With the
   * chain, one failed append fails every later one with the same exception, so the follower refuses
   * all appends until its process restarts. Requests of a leader that has a second stream open to
   * the follower (a reset stream whose requests are still being handled, and the new one) can reach
   * the chain out of order, and the append that comes too early fails its index check; seen after a
   * partition healed: the log "Already running a method by Thread ..." on every append for minutes.
   * Without the chain, a request whose previous entry the follower lacks gets an inconsistency
   * reply and the leader sends from the follower's next index.
   */
  static final boolean CHAIN_FOLLOWER_APPENDS = false;

  /**
   * How long a leader's appender to a member waits after each error: a few times at once (a dropped
   * stream), then this long for as long as errors go on. Ratis' default backs off to one try a
   * second after ten errors and to one every 5 s after thirty (each randomized to 0.5-1.5 times the
   * wait), which a restarted member met twice: the leader tried it again up to 7.5 s after its
   * server was up, and once it answered, its first replies (inconsistencies: the leader's next
   * index ran ahead while it was down, and the heartbeats queued while its cold JVM accepted the
   * connection each get one) are errors too, still counted on from the failed tries, so the leader
   * waited that long again after each of them before it sent the entries. A member that starts
   * after the others (a cluster whose processes start one by one) got no heartbeat for that long
   * and stood for election against a live leader. A try at a member that is down costs one refused
   * connection; this pace keeps a restarted member's wait after each of its first replies within a
   * few tens of milliseconds.
   */
  static final Duration APPENDER_RETRY_WAIT = Duration.ofMillis(20);

  /** Tries a leader makes at once (1 ms apart) before it waits {@link #APPENDER_RETRY_WAIT}. */
  static final int APPENDER_QUICK_RETRIES = 10;

  /** The wait between a leader's immediate tries of a member that failed to answer. */
  static final Duration APPENDER_QUICK_RETRY_WAIT = Duration.ofMillis(1);

  public RaftSettings {
    if (electionTimeoutMin.isNegative()
        || electionTimeoutMin.isZero()
        || electionTimeoutMax.compareTo(electionTimeoutMin) <= 0) {
      throw new IllegalArgumentException(
          "election timeouts must satisfy 0 < min < max: "
              + electionTimeoutMin
              + ", "
              + electionTimeoutMax);
    }
    if (snapshotEvery < 1) {
      throw new IllegalArgumentException("snapshotEvery must be positive: " + snapshotEvery);
    }
    if (requestTimeout.isNegative() || requestTimeout.isZero()) {
      throw new IllegalArgumentException("requestTimeout must be positive: " + requestTimeout);
    }
  }

  public static RaftSettings defaults() {
    return new RaftSettings(
        DEFAULT_ELECTION_TIMEOUT_MIN,
        DEFAULT_ELECTION_TIMEOUT_MAX,
        DEFAULT_REQUEST_TIMEOUT,
        DEFAULT_SNAPSHOT_EVERY,
        DEFAULT_LOG_SEGMENT_BYTES);
  }

  public RaftSettings withElectionTimeouts(Duration min, Duration max) {
    return new RaftSettings(min, max, requestTimeout, snapshotEvery, logSegmentBytes);
  }

  public RaftSettings withSnapshotEvery(long entries) {
    return new RaftSettings(
        electionTimeoutMin, electionTimeoutMax, requestTimeout, entries, logSegmentBytes);
  }

  public RaftSettings withLogSegmentBytes(long bytes) {
    return new RaftSettings(
        electionTimeoutMin, electionTimeoutMax, requestTimeout, snapshotEvery, bytes);
  }

  public RaftSettings withRequestTimeout(Duration timeout) {
    return new RaftSettings(
        electionTimeoutMin, electionTimeoutMax, timeout, snapshotEvery, logSegmentBytes);
  }

  /**
   * The properties of a member's Raft server, which listens on {@code bindHost:port} (its admin and
   * client services on the same port).
   */
  RaftProperties serverProperties(Path storageDir, String bindHost, int port) {
    RaftProperties p = new RaftProperties();
    RaftServerConfigKeys.setStorageDir(p, List.of(storageDir.toFile()));
    GrpcConfigKeys.Server.setHost(p, bindHost);
    GrpcConfigKeys.Server.setPort(p, port);
    RaftServerConfigKeys.Rpc.setTimeoutMin(p, millis(electionTimeoutMin));
    RaftServerConfigKeys.Rpc.setTimeoutMax(p, millis(electionTimeoutMax));
    RaftServerConfigKeys.Rpc.setRequestTimeout(p, millis(requestTimeout));
    RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
    RaftServerConfigKeys.Read.setLeaderLeaseEnabled(p, LEADER_LEASE_READS);
    RaftServerConfigKeys.Read.setLeaderHeartbeatCheckEnabled(p, READ_HEARTBEAT_CHECK);
    // a read that cannot confirm the leadership fails within the request timeout, as writes do
    RaftServerConfigKeys.Read.setTimeout(p, millis(requestTimeout));
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, snapshotEvery);
    RaftServerConfigKeys.Snapshot.setCreationGap(p, snapshotEvery);
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, SNAPSHOTS_RETAINED);
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
    RaftServerConfigKeys.Log.setPurgeGap(p, PURGE_GAP_ENTRIES);
    RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(logSegmentBytes));
    // a segment file is never preallocated past the segment's own size
    RaftServerConfigKeys.Log.setPreallocatedSize(
        p,
        SizeInBytes.valueOf(
            Math.min(
                logSegmentBytes, RaftServerConfigKeys.Log.PREALLOCATED_SIZE_DEFAULT.getSize())));
    RaftServerConfigKeys.LeaderElection.setLeaderStepDownWaitTime(
        p, millis(electionTimeoutMax.multipliedBy(STEP_DOWN_WAIT_TIMEOUTS)));
    RaftServerConfigKeys.Log.setLogMetadataEnabled(p, LOG_COMMIT_INDEX);
    RaftServerConfigKeys.Log.setAppendEntriesComposeEnabled(p, CHAIN_FOLLOWER_APPENDS);
    RaftServerConfigKeys.Log.Appender.setRetryPolicy(p, appenderRetryPolicy());
    RaftServerConfigKeys.setStagingTimeout(
        p, millis(electionTimeoutMax.multipliedBy(STAGING_TIMEOUTS)));
    return p;
  }

  /**
   * Ratis' retry policy of a leader's log appender ("wait,tries" pairs): quick tries, then a try
   * every {@link #APPENDER_RETRY_WAIT} without end.
   */
  static String appenderRetryPolicy() {
    return APPENDER_QUICK_RETRY_WAIT.toMillis()
        + "ms,"
        + APPENDER_QUICK_RETRIES
        + ","
        + APPENDER_RETRY_WAIT.toMillis()
        + "ms,"
        + Integer.MAX_VALUE;
  }

  RaftProperties clientProperties() {
    RaftProperties p = new RaftProperties();
    org.apache.ratis.client.RaftClientConfigKeys.Rpc.setRequestTimeout(p, millis(requestTimeout));
    return p;
  }

  static TimeDuration millis(Duration d) {
    return TimeDuration.valueOf(d.toMillis(), TimeUnit.MILLISECONDS);
  }
}
