package dev.baton.procedure;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongFunction;

/**
 * Decides what a new executor rebuilds from the records it loaded: which procedures are live, which
 * trees completed, which records lost their root, each root stack's rollback entries, failures and
 * pending children, what is queued (and in which order), and which timers are armed. Pure: it reads
 * decoded procedures through {@link ProcedureFacts} and returns the plan as values; {@link
 * ProcedureRecovery} loads and decodes the store and carries the plan out. Procedures are told
 * apart by identity (a procedure class may define equals).
 */
final class RecoveryPlanner {
  private RecoveryPlanner() {}

  /**
   * Which decoded procedures are live, completed or orphaned.
   *
   * @param live members of unfinished trees, in ascending procId order (a root before its members)
   * @param finishedRoots roots that reached a terminal state: retained, never live again
   * @param retainedMembers members kept with their finished root, by root procId
   * @param orphans procedures whose root is corrupt or missing, with the reason (reported corrupt)
   * @param brokenTrees live roots with a corrupt member, with the reason (their stacks fail)
   */
  record Sorting<P>(
      List<P> live,
      List<P> finishedRoots,
      Map<Long, List<P>> retainedMembers,
      Map<P, String> orphans,
      Map<Long, String> brokenTrees) {}

  /**
   * Sorts the decoded procedures.
   *
   * @param inOrder the decoded procedures in ascending procId order
   * @param byId a decoded procedure by procId, or null
   * @param corruptReasons why each undecodable record failed, by procId
   * @param corruptRoots the root procId each undecodable record names (if its envelope was read)
   */
  static <P> Sorting<P> sort(
      List<P> inOrder,
      LongFunction<P> byId,
      Map<Long, String> corruptReasons,
      Map<Long, Long> corruptRoots,
      ProcedureFacts<P> facts) {
    Map<Long, String> brokenTrees = new HashMap<>();
    for (Map.Entry<Long, Long> e : corruptRoots.entrySet()) {
      if (!e.getValue().equals(e.getKey())) {
        brokenTrees.put(e.getValue(), "member " + e.getKey() + " is corrupt");
      }
    }
    List<P> live = new ArrayList<>();
    List<P> finishedRoots = new ArrayList<>();
    Map<Long, List<P>> retained = new HashMap<>();
    Map<P, String> orphans = new IdentityHashMap<>();
    for (P p : inOrder) {
      long rootId = facts.rootProcId(p);
      P root = rootId == facts.procId(p) ? p : byId.apply(rootId);
      if (root == null) {
        orphans.put(
            p,
            corruptReasons.containsKey(rootId)
                ? "its root " + rootId + " is corrupt"
                : "its root " + rootId + " is missing");
      } else if (!facts.isFinished(root)) {
        live.add(p);
      } else if (p == root) {
        finishedRoots.add(p);
      } else {
        retained.computeIfAbsent(rootId, k -> new ArrayList<>()).add(p);
      }
    }
    return new Sorting<>(live, finishedRoots, retained, orphans, brokenTrees);
  }

  /** A timer to arm: {@code kind} for {@code proc} at {@code deadline} (executor clock, ms). */
  record Timer<P>(P proc, long deadline, TimeoutQueue.Kind kind) {}

  /**
   * A root stack to fail: with the stored failure of {@code member}, or, if {@code reason} is not
   * null, with a recovery failure for that reason.
   */
  record StackFailure<P>(long rootProcId, P member, String reason) {}

  /**
   * How the live procedures are wired.
   *
   * @param roots the live roots, in procId order: one stack each
   * @param pendingChildren the recounted pending children of each WAITING parent that waited for
   *     any (its unfinished children among the records)
   * @param resumed procedures that become RUNNABLE (stored INITIALIZING, or WAITING for children
   *     that all finished)
   * @param failures stack failures, in the order they are set (the first names the root's cause)
   * @param dueSteps RUNNABLE procedures whose due step counts as executed (it may have run before
   *     the crash) and is not counted yet: each gets a rollback entry, in this order, and all are
   *     written before any step runs, so that a later restart finds each entry where this one put
   *     it, below the entries of steps recorded after this restart
   * @param timers the timers to arm, in order
   * @param queue what is queued, in order: the roots of failed stacks (they unwind first), then
   *     every runnable procedure
   */
  record Wiring<P>(
      List<P> roots,
      Map<P, Integer> pendingChildren,
      List<P> resumed,
      List<StackFailure<P>> failures,
      List<P> dueSteps,
      List<Timer<P>> timers,
      List<P> queue) {}

  /** Plans the wiring of {@code live} (ascending procId order). */
  static <P> Wiring<P> wire(List<P> live, Map<Long, String> brokenTrees, ProcedureFacts<P> facts) {
    List<P> roots = new ArrayList<>();
    Map<Long, Integer> unfinishedChildren = new HashMap<>();
    for (P p : live) {
      if (!facts.hasParent(p)) {
        roots.add(p);
      } else if (!facts.isFinished(p)) {
        unfinishedChildren.merge(facts.parentProcId(p), 1, Integer::sum);
      }
    }
    List<StackFailure<P>> failures = new ArrayList<>();
    Set<Long> failedRoots = new HashSet<>();
    for (P root : roots) {
      String broken = brokenTrees.get(facts.procId(root));
      if (broken != null) {
        failures.add(new StackFailure<>(facts.procId(root), root, broken));
        failedRoots.add(facts.procId(root));
      }
    }
    Map<P, Integer> pendingChildren = new IdentityHashMap<>();
    List<P> resumed = new ArrayList<>();
    List<P> runnable = new ArrayList<>();
    Set<P> childrenDone = Collections.newSetFromMap(new IdentityHashMap<>());
    List<Timer<P>> timers = new ArrayList<>();
    for (P p : live) {
      switch (facts.state(p)) {
        case RUNNABLE, INITIALIZING -> {
          if (facts.state(p) == ProcedureState.INITIALIZING) {
            resumed.add(p);
          }
          runnable.add(p);
        }
        case WAITING -> {
          if (facts.pendingChildren(p) > 0) {
            int pending = unfinishedChildren.getOrDefault(facts.procId(p), 0);
            pendingChildren.put(p, pending);
            if (pending == 0) {
              resumed.add(p);
              runnable.add(p);
              childrenDone.add(p);
            }
          }
        }
        case WAITING_TIMEOUT ->
            timers.add(new Timer<>(p, facts.waitDeadline(p), TimeoutQueue.Kind.WAIT_EXPIRED));
        case FAILED -> {
          failures.add(new StackFailure<>(facts.rootProcId(p), p, null));
          failedRoots.add(facts.rootProcId(p));
        }
        default -> {
          // SUCCESS children wait for their root; ROLLEDBACK members for the unwind to finish
        }
      }
      if (facts.timeout(p) > 0 && !facts.isFinished(p)) {
        timers.add(
            new Timer<>(
                p,
                facts.submittedTime(p) + facts.timeout(p),
                TimeoutQueue.Kind.PROCEDURE_DEADLINE));
      }
    }
    List<P> dueSteps = new ArrayList<>();
    for (P p : runnable) {
      // Stored WAITING in a failed tree: its children were being rolled back, so its due step
      // never ran and must not be undone.
      if (!(childrenDone.contains(p) && failedRoots.contains(facts.rootProcId(p)))
          && facts.dueStepUncounted(p)) {
        dueSteps.add(p);
      }
    }
    List<P> queue = new ArrayList<>(runnable.size() + failedRoots.size());
    for (P root : roots) {
      if (failedRoots.contains(facts.procId(root))) {
        queue.add(root);
      }
    }
    queue.addAll(runnable);
    return new Wiring<>(roots, pendingChildren, resumed, failures, dueSteps, timers, queue);
  }

  /**
   * A stack's rollback entries rebuilt from its members' stored stack indexes, oldest first, and
   * the next index to hand out.
   */
  record Entries<P>(List<P> entries, int nextIndex) {}

  /**
   * Orders a stack's rollback entries by the members' stored indexes. Indexes lost with an
   * unpersisted step leave gaps; only the order matters, and new entries continue after the highest
   * restored index so stored indexes never collide. Two members claiming one index is an error.
   */
  static <P> Entries<P> entries(long rootProcId, List<P> members, ProcedureFacts<P> facts) {
    if (members.size() == 1) {
      Entries<P> sole = soleMemberEntries(members.get(0), facts);
      if (sole != null) {
        return sole;
      }
    }
    TreeMap<Integer, P> byIndex = new TreeMap<>();
    for (P member : members) {
      for (int index : facts.stackIndexes(member)) {
        P previous = byIndex.put(index, member);
        if (previous != null && previous != member) {
          throw new IllegalStateException(
              "rollback stack of root "
                  + rootProcId
                  + ": index "
                  + index
                  + " claimed by procedures "
                  + facts.procId(previous)
                  + " and "
                  + facts.procId(member));
        }
      }
    }
    return new Entries<>(
        new ArrayList<>(byIndex.values()), byIndex.isEmpty() ? 0 : byIndex.lastKey() + 1);
  }

  /**
   * The common case, a root without children: if its stored indexes are strictly ascending (as
   * {@link RootProcedureStack#addEntry} appends them), each is one entry of that member, in that
   * order: what the general path computes, without a map. Null otherwise.
   */
  private static <P> Entries<P> soleMemberEntries(P member, ProcedureFacts<P> facts) {
    int[] indexes = facts.stackIndexes(member);
    for (int i = 1; i < indexes.length; i++) {
      if (indexes[i] <= indexes[i - 1]) {
        return null;
      }
    }
    return new Entries<>(
        Collections.nCopies(indexes.length, member),
        indexes.length == 0 ? 0 : indexes[indexes.length - 1] + 1);
  }
}
