package dev.baton.procedure.scheduler;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds cycles of the wait-for graph of a {@link LockTable} ({@link LockCycle} lists the edges).
 *
 * <p>Only a lock edge leaves a parked procedure, and a parked procedure holds nothing (all or
 * none), so lock edges alone never close a cycle: every cycle also has a procedure that waits for a
 * descendant, i.e. a child asking for a lock its ancestor holds in a weaker mode, or trees that
 * hold locks across steps and whose children ask for each other's locks.
 *
 * <p>The search runs backwards from a procedure that just parked: who waits for it (its ancestors;
 * the waiters behind it in its queue), who waits for those (waiters excluded by the locks they
 * hold; their ancestors) and so on; the procedure is on a cycle if the search comes back to it. A
 * procedure that parks at the tail of a queue without a parent has nobody waiting for it, so the
 * common case costs nothing; otherwise the search visits each procedure and each queue once. Runs
 * under the manager's monitor.
 */
final class WaitForGraph {
  private static final int MAX_ANCESTOR_DEPTH = 10_000;

  private final LockTable table;

  /** A cycle: its links in order and their procedures. */
  record Found(List<LockCycle.Link> links, List<Schedulable> members) {}

  /** How a procedure waits for {@code to}: the reason, and the lock and mode for a lock wait. */
  private record Edge(Schedulable to, LockCycle.Reason reason, LockAndQueue lock, LockMode mode) {
    LockCycle.Link link(Schedulable from) {
      return new LockCycle.Link(
          from.getProcId(),
          from.getType(),
          reason,
          lock == null ? null : lock.key().toString(),
          mode,
          to.getProcId());
    }
  }

  // p -> the edge by which p waits for a procedure nearer to the start
  private final Map<Schedulable, Edge> next = new IdentityHashMap<>();
  private final ArrayDeque<Schedulable> frontier = new ArrayDeque<>();
  private final Set<LockWaiter> covered = Collections.newSetFromMap(new IdentityHashMap<>());
  private final Schedulable start;
  private Edge closing;

  private WaitForGraph(LockTable table, Schedulable start) {
    this.table = table;
    this.start = start;
  }

  /** The cycle through {@code proc}, starting with {@code proc}'s own link; null if none. */
  static Found cycleThrough(LockTable table, Schedulable proc) {
    return nobodyWaitsFor(table, proc) ? null : new WaitForGraph(table, proc).search();
  }

  /**
   * Whether nothing can wait for {@code proc}: a root that holds nothing and is the last of its
   * queue (the common case of a procedure that just parked); such a one is on no cycle.
   */
  private static boolean nobodyWaitsFor(LockTable table, Schedulable proc) {
    LockOwner o = table.owner(proc);
    return table.host().parentOf(proc) == null
        && (o == null
            || (o.held().isEmpty()
                && (o.waiting() == null || o.waiting().queuedOn().lastWaiter() == o.waiting())));
  }

  /**
   * Every cycle of the table now, each once. Every cycle has a parked procedure with a parent (see
   * the class comment), so only those are searched from.
   */
  static List<Found> allCycles(LockTable table) {
    List<Found> out = new ArrayList<>();
    Set<Schedulable> onCycles = Collections.newSetFromMap(new IdentityHashMap<>());
    List<LockOwner> parked = new ArrayList<>();
    for (LockOwner o : table.owners()) {
      if (o.waiting() != null && table.host().parentOf(o.proc()) != null) {
        parked.add(o);
      }
    }
    parked.sort((a, b) -> Long.compare(a.proc().getProcId(), b.proc().getProcId()));
    for (LockOwner o : parked) {
      if (onCycles.contains(o.proc())) {
        continue;
      }
      Found cycle = cycleThrough(table, o.proc());
      if (cycle != null) {
        out.add(cycle);
        onCycles.addAll(cycle.members());
      }
    }
    return out;
  }

  private Found search() {
    frontier.add(start);
    while (!frontier.isEmpty() && closing == null) {
      expand(frontier.poll());
    }
    if (closing == null) {
      return null;
    }
    List<LockCycle.Link> links = new ArrayList<>();
    List<Schedulable> members = new ArrayList<>();
    links.add(closing.link(start));
    members.add(start);
    Schedulable at = closing.to();
    while (at != start) {
      Edge e = next.get(at);
      links.add(e.link(at));
      members.add(at);
      at = e.to();
    }
    return new Found(links, members);
  }

  /** Records every procedure that waits for {@code x}. */
  private void expand(Schedulable x) {
    Schedulable a = table.host().parentOf(x);
    for (int depth = 0; a != null && depth < MAX_ANCESTOR_DEPTH; depth++) {
      if (waitsFor(a, new Edge(x, LockCycle.Reason.DESCENDANT, null, null))) {
        return;
      }
      a = table.host().parentOf(a);
    }
    LockOwner ox = table.owner(x);
    if (ox == null) {
      return;
    }
    for (LockAndQueue e : ox.held()) {
      if (excludedWaiters(x, e)) {
        return;
      }
    }
    LockWaiter w = ox.waiting();
    if (w != null && !covered.contains(w) && w.queuedOn().lastWaiter() != w) {
      waitersBehind(w);
    }
  }

  /**
   * The waiters of {@code e} that wait for its holder {@code x}: from the first whose wish {@code
   * x}'s hold excludes, each excluded one waits for {@code x} and each other one behind the waiter
   * ahead of it. True if the start was among them.
   */
  private boolean excludedWaiters(Schedulable x, LockAndQueue e) {
    if (!e.hasWaiters()) {
      return false;
    }
    boolean exclusive = e.isExclusiveHolder(x);
    LockWaiter prev = null;
    for (LockWaiter w : e.waitersInOrder()) {
      boolean excluded = exclusive || w.wanted() == LockMode.EXCLUSIVE;
      if (prev == null && !excluded) {
        continue;
      }
      covered.add(w);
      Schedulable to = excluded ? x : prev.owner().proc();
      LockCycle.Reason reason =
          excluded ? LockCycle.Reason.LOCK_HELD : LockCycle.Reason.QUEUED_BEHIND;
      if (waitsFor(w.owner().proc(), new Edge(to, reason, e, w.wanted()))) {
        return true;
      }
      prev = w;
    }
    return false;
  }

  /** The waiters queued behind {@code w} on its lock wait for it, each for the one ahead. */
  private void waitersBehind(LockWaiter w) {
    List<LockWaiter> behind = new ArrayList<>();
    Iterator<LockWaiter> fromTail = w.queuedOn().waitersNewestFirst();
    while (fromTail.hasNext()) {
      LockWaiter b = fromTail.next();
      if (b == w) {
        break;
      }
      behind.add(b);
    }
    Collections.reverse(behind);
    LockWaiter ahead = w;
    for (LockWaiter b : behind) {
      covered.add(b);
      Schedulable to = ahead.owner().proc();
      if (waitsFor(
          b.owner().proc(),
          new Edge(to, LockCycle.Reason.QUEUED_BEHIND, w.queuedOn(), b.wanted()))) {
        return;
      }
      ahead = b;
    }
  }

  /** {@code p} waits by {@code edge}; true if {@code p} is the start (the cycle closed). */
  private boolean waitsFor(Schedulable p, Edge edge) {
    if (p == start) {
      closing = edge;
      return true;
    }
    if (next.putIfAbsent(p, edge) == null) {
      frontier.add(p);
    }
    return false;
  }
}
