package dev.baton.consensus;

/** The role of a node in the procedure cluster. */
public enum NodeRole {
  /** Applies replicated state; runs no executor. */
  FOLLOWER,
  /** Leader, rebuilding its executor from the replicated state; submissions are accepted. */
  LEADER_RECOVERING,
  /** Leader with a running executor. */
  LEADER_RUNNING
}
