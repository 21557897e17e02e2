package dev.baton.procedure.scheduler;

import java.util.ArrayList;
import java.util.List;

/**
 * A cycle of the wait-for graph of a {@link LockManager}: each procedure of it waits for the next,
 * and the last for the first, so none of them can go on (a deadlock). Edges of the graph: a parked
 * procedure waits for the holders of the lock it is queued on that exclude its wish, or for the
 * waiter ahead of it (FIFO); a procedure waits for each of its live descendants (a parent runs
 * again only once its children finished).
 *
 * @param detectedAt when the cycle was found (epoch ms of the executor's clock)
 * @param links the procedures of the cycle, each with what it waits for, starting with the one
 *     whose wait closed the cycle
 * @param victim the procedure failed to break the cycle (the youngest that waits for a lock); 0 if
 *     the cycle was left as it is
 */
public record LockCycle(long detectedAt, List<Link> links, long victim) {

  /** How one procedure of a cycle waits for the next. */
  public enum Reason {
    /** It is parked on a lock the next one holds in a mode that excludes its wish. */
    LOCK_HELD,
    /** It is parked on a lock behind the next one (FIFO: no barging past earlier waiters). */
    QUEUED_BEHIND,
    /** The next one is its live descendant, which it waits to finish. */
    DESCENDANT
  }

  /**
   * One procedure of a cycle and what it waits for.
   *
   * @param resource the lock for {@link Reason#LOCK_HELD} and {@link Reason#QUEUED_BEHIND}, else
   *     null
   * @param mode the mode it wants there, else null
   * @param waitsFor the id of the next procedure of the cycle
   */
  public record Link(
      long procId, String procType, Reason reason, String resource, LockMode mode, long waitsFor) {

    /** "procedure 5 (MigrateRegion) waits for lock node:1 (EXCLUSIVE) held by procedure 4". */
    public String describe() {
      String who = "procedure " + procId + " (" + procType + ")";
      return switch (reason) {
        case LOCK_HELD ->
            who + " waits for lock " + resource + " (" + mode + ") held by procedure " + waitsFor;
        case QUEUED_BEHIND ->
            who
                + " waits behind procedure "
                + waitsFor
                + " in the queue of lock "
                + resource
                + " ("
                + mode
                + ")";
        case DESCENDANT -> who + " waits for its descendant procedure " + waitsFor;
      };
    }
  }

  public LockCycle {
    links = List.copyOf(links);
  }

  /** The ids of the procedures of the cycle, in its order. */
  public List<Long> procIds() {
    List<Long> ids = new ArrayList<>(links.size());
    links.forEach(l -> ids.add(l.procId()));
    return ids;
  }

  /** Whether a procedure was failed to break it. */
  public boolean broken() {
    return victim != 0;
  }

  /** This cycle with {@code victimProcId} as the procedure failed to break it. */
  LockCycle brokenBy(long victimProcId) {
    return new LockCycle(detectedAt, links, victimProcId);
  }

  /** The cycle as one line: every link, then how it ends. */
  public String describe() {
    StringBuilder sb =
        new StringBuilder("deadlock of ").append(links.size()).append(" procedures: ");
    for (int i = 0; i < links.size(); i++) {
      sb.append(i > 0 ? "; " : "").append(links.get(i).describe());
    }
    if (broken()) {
      sb.append("; procedure ")
          .append(victim)
          .append(", the youngest waiting for a lock, fails to break it");
    }
    return sb.toString();
  }
}
