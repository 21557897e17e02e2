package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leader keeps trying a silent member at a short pace however long it stayed silent (Ratis' own
 * policy waits up to 7.5 s between tries after thirty failures), and never stops trying; and once a
 * restarted member answers, the leader's wait after each of its first replies (inconsistencies,
 * counted on from the failed tries) stays short.
 */
@Timeout(10)
class AppenderRetryPolicyTest {
  /**
   * Failure counts on both sides of the steps of Ratis' own policy (1 ms up to 10 failures, 1 s up
   * to 30, 5 s beyond; each randomized to 0.5-1.5 times).
   */
  static final int[] FAILURES = {1, 10, 11, 30, 31, 1_000, 1_000_000};

  /** Samples per failure count: each wait is randomized. */
  static final int SAMPLES = 50;

  /** Ratis randomizes a wait to at most this multiple of the configured one. */
  static final double RANDOM_SPREAD = 1.5;

  /**
   * The most a restarted member's catch-up may lose to the leader's wait after each of its first
   * replies: a handful of them (the heartbeats queued while it accepted the connection) must cost
   * well under the 1 s a restarted member has to catch up.
   */
  static final long CATCH_UP_WAIT_BOUND_MILLIS = 50;

  /** Failed tries of a member that was down for a while (a try about every 20-100 ms). */
  static final int[] FAILURES_OF_A_RESTARTED_MEMBER = {100, 500, 5_000};

  @TempDir Path dir;

  @Test
  void aSilentMemberIsTriedAgainWithinAFractionOfASecondAfterAnyNumberOfFailures() {
    RetryPolicy policy = policy();
    long bound = (long) (RaftSettings.APPENDER_RETRY_WAIT.toMillis() * RANDOM_SPREAD);
    assertWaitsAtMost(policy, FAILURES, bound);
  }

  @Test
  void theFirstRepliesOfARestartedMemberCostTheLeaderOnlyAShortWaitEach() {
    assertWaitsAtMost(policy(), FAILURES_OF_A_RESTARTED_MEMBER, CATCH_UP_WAIT_BOUND_MILLIS);
  }

  private RetryPolicy policy() {
    RaftProperties p = RaftSettings.defaults().serverProperties(dir, "127.0.0.1", 0);
    return RetryPolicy.parse(
        RaftServerConfigKeys.Log.Appender.retryPolicy(p),
        RaftServerConfigKeys.Log.Appender.RETRY_POLICY_KEY);
  }

  private static void assertWaitsAtMost(RetryPolicy policy, int[] failureCounts, long bound) {
    for (int failures : failureCounts) {
      for (int i = 0; i < SAMPLES; i++) {
        RetryPolicy.Action action = policy.handleAttemptFailure(() -> failures);
        assertTrue(action.shouldRetry(), "gave up after " + failures + " failures");
        long wait = action.getSleepTime().toLong(TimeUnit.MILLISECONDS);
        assertTrue(wait <= bound, "waits " + wait + " ms after " + failures + " failures");
      }
    }
  }
}
