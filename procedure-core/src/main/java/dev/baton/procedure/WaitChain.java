package dev.baton.procedure;

import java.util.List;

/**
 * Why a procedure does not go on, followed to the root cause: the procedure asked, what it waits
 * on, the procedure that holds that up and what it waits on, and so on, to a procedure that waits
 * on something other than a procedure (a call, a timer, a slot, a worker), runs, or is gone; or
 * until the chain comes back to a procedure already in it (a cycle). Where a wait names several
 * procedures (shared holders, children), the chain follows the first of {@link
 * BlockedOn#waitsFor()}.
 *
 * @param procId the procedure asked
 * @param links the procedures in the order followed, the asked one first
 * @param cycle whether the last link waits for a procedure earlier in the chain
 * @param rootCause the cause as one line: the last link's wait, that it runs or is gone, or the
 *     cycle
 */
public record WaitChain(long procId, List<Link> links, boolean cycle, String rootCause) {
  /** Longest chain followed; a longer one ends with a link that says it was cut. */
  public static final int MAX_LINKS = 64;

  public WaitChain {
    links = List.copyOf(links);
  }

  /**
   * One procedure of a chain.
   *
   * @param state its state; null if it is no longer live ({@code gone})
   * @param step its current step's name, or null
   * @param blockedOn what it waits on; null if it runs (or is gone)
   * @param waitReason {@code blockedOn}'s text, or what it does instead ("running step X")
   */
  public record Link(
      long procId,
      String type,
      ProcedureState state,
      String step,
      BlockedOn blockedOn,
      String waitReason) {}
}
