package dev.baton.procedure.scheduler;

import java.util.List;

/**
 * A read-only snapshot of one type's limit in a {@link ProcedureLimiter}.
 *
 * @param type the procedure type
 * @param limit the cap
 * @param running procedures executing a step of this type now
 * @param reserved procedures a freed slot was handed to, queued to run their step (they count
 *     against the cap)
 * @param waiting procedures waiting for a slot, in the order they will get one
 */
public record LimitInfo(
    String type, int limit, List<Long> running, List<Long> reserved, List<Long> waiting) {

  public LimitInfo {
    running = List.copyOf(running);
    reserved = List.copyOf(reserved);
    waiting = List.copyOf(waiting);
  }

  /** Slots in use: running plus reserved; never more than {@link #limit()}. */
  public int inUse() {
    return running.size() + reserved.size();
  }
}
