package dev.baton.procedure.scheduler;

/**
 * The kinds of resources procedures schedule on and lock. A {@link #REGION} lives inside a {@link
 * #DATABASE}; a {@link #NODE} stands alone. The order of the constants is the default scheduling
 * priority of {@link FairScheduler}: nodes first, then databases, then regions.
 */
public enum ResourceType {
  /** A data node (adding or removing it, moving everything off it). */
  NODE,
  /** A database and its schema. */
  DATABASE,
  /** A region of a database. */
  REGION
}
