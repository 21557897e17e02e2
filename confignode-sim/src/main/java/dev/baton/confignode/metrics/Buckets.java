package dev.baton.confignode.metrics;

/** Upper bounds (seconds) of the classic histogram buckets, per kind of duration. */
final class Buckets {
  /** A whole procedure: milliseconds (a no-op) to an hour (a region migration under load). */
  static final double[] PROCEDURE = {
    0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600
  };

  /** One step: sub-millisecond bookkeeping to a DataNode call that takes half a minute. */
  static final double[] STEP = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30
  };

  /** One store write: a group commit through Raft, normally milliseconds. */
  static final double[] STORE_WRITE = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5
  };

  /** A wait for a resource lock: as long as the holder's procedure, at worst. */
  static final double[] LOCK_WAIT = PROCEDURE;

  private Buckets() {}
}
