package dev.baton.confignode.hosts;

/**
 * What a probe connection found: the peer answered (a connection, or a refusal, which took a packet
 * each way too), or it did not within the probe's bound, or the prober's own kernel refused to
 * send.
 */
public enum Reach {
  /** Connected. */
  CONNECTED,
  /** The peer's kernel answered with a reset: nothing listens there, but the path works. */
  REFUSED,
  /** No answer within the probe's bound. */
  TIMED_OUT,
  /** The prober's kernel had no usable route (a blackhole, unreachable or prohibit route). */
  UNREACHABLE;

  /** Whether a packet went each way. */
  public boolean reached() {
    return this == CONNECTED || this == REFUSED;
  }
}
