package dev.baton.consensus;

import java.time.Duration;

/**
 * The failed executor launches of one leadership term in a row, and what to do after the next
 * failure; plain state with no threads or clocks (the caller passes the time and holds the lock).
 *
 * <p>The first failure of a streak is relaunched at once, later ones after a pause that doubles
 * from {@code backoff} up to {@code maxBackoff}. Once the streak is {@code giveUp} old, the leader
 * should hand leadership to another node (asked once at a time; it keeps relaunching meanwhile). A
 * streak ends when an incarnation has run for longer than {@code giveUp}.
 */
final class RelaunchStreak {
  /** Doublings of the backoff beyond which the pause stays at the maximum. */
  private static final int MAX_DOUBLINGS = 20;

  /**
   * What to do after a failure.
   *
   * @param delayMillis pause before the next launch
   * @param attempt the number of the next launch attempt in this streak
   * @param handOver whether to ask now that another node takes leadership
   */
  record Next(long delayMillis, int attempt, boolean handOver) {}

  private final Duration backoff;
  private final Duration maxBackoff;
  private final Duration giveUp;
  private long failingSince;
  private long runningSince;
  private int failures;
  private boolean handingOver;

  RelaunchStreak(Duration backoff, Duration maxBackoff, Duration giveUp) {
    this.backoff = backoff;
    this.maxBackoff = maxBackoff;
    this.giveUp = giveUp;
  }

  /** An incarnation started running at {@code now}. */
  void running(long now) {
    runningSince = now;
  }

  /** The running incarnation, or a launch, failed at {@code now}. */
  Next failed(long now) {
    boolean ranLong = runningSince > 0 && now - runningSince > giveUp.toMillis();
    if (failures == 0 || ranLong) {
      failingSince = now;
      failures = 0;
    }
    runningSince = 0;
    failures++;
    boolean handOver = !handingOver && now - failingSince >= giveUp.toMillis();
    if (handOver) {
      handingOver = true;
    }
    return new Next(pause(), failures + 1, handOver);
  }

  /** A hand-over request finished (accepted or not); a later failure may ask again. */
  void handOverDone() {
    handingOver = false;
  }

  private long pause() {
    if (failures <= 1) {
      return 0;
    }
    int doublings = Math.min(failures - 2, MAX_DOUBLINGS);
    return Math.min(backoff.toMillis() << doublings, maxBackoff.toMillis());
  }
}
