package dev.baton.procedure.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Wait-for cycles in the lock manager on its own (a hand-driven host, no threads): found when the
 * wait that closes them parks, counted, told to the host, listed while left in place, and broken by
 * failing the youngest waiter when the host says so; no cycle where there is none.
 */
@Timeout(30)
class LockCycleTest {
  private static final ResourceKey A = ResourceKey.node("a");
  private static final ResourceKey B = ResourceKey.node("b");
  private static final ResourceKey X = ResourceKey.database("x");
  private static final ResourceKey Y = ResourceKey.database("y");

  /** A procedure object with an id, for the lock manager only. */
  private record Proc(long getProcId, String getType) implements Schedulable {
    @Override
    public boolean equals(Object o) {
      return this == o;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(this);
    }

    @Override
    public String toString() {
      return "p" + getProcId;
    }
  }

  private final LockManagerTest.Host host = new LockManagerTest.Host();
  private final LockManager locks = new LockManager();

  @BeforeEach
  void attach() {
    locks.attach(host);
  }

  private static Proc proc(long id) {
    return new Proc(id, "T");
  }

  private Proc child(long id, Proc parent) {
    Proc c = proc(id);
    host.parents.put(c, parent);
    return c;
  }

  private void holds(Proc p, LockRequest r) {
    assertEquals(LockOutcome.ACQUIRED, locks.acquire(p, r), p + " takes " + r);
  }

  private void parks(Proc p, LockRequest r) {
    assertEquals(LockOutcome.PARKED, locks.acquire(p, r), p + " waits for " + r);
  }

  @Test
  void aChildAskingExclusivelyForWhatItsParentHoldsSharedClosesACycleOfTwo() {
    Proc parent = proc(4);
    Proc child = child(5, parent);
    holds(parent, LockRequest.shared(A));
    parks(child, LockRequest.exclusive(A));

    assertEquals(1, locks.deadlockCount());
    LockCycle found = host.deadlocks.get(0);
    assertEquals(List.of(5L, 4L), found.procIds());
    assertEquals(LockCycle.Reason.LOCK_HELD, found.links().get(0).reason());
    assertEquals("node:a", found.links().get(0).resource());
    assertEquals(LockMode.EXCLUSIVE, found.links().get(0).mode());
    assertEquals(LockCycle.Reason.DESCENDANT, found.links().get(1).reason());
    assertFalse(found.broken(), "the host does not break deadlocks");
    assertEquals(
        "deadlock of 2 procedures: procedure 5 (T) waits for lock node:a (EXCLUSIVE) held by"
            + " procedure 4; procedure 4 (T) waits for its descendant procedure 5",
        found.describe());
    assertTrue(locks.isWaiting(child), "left in place");
    assertEquals(
        List.of(List.of(5L, 4L)), locks.cycles().stream().map(LockCycle::procIds).toList());
    assertEquals(List.of(found), locks.recentDeadlocks());
  }

  @Test
  void aBrokenCycleFailsItsYoungestWaiterWithTheCycleInTheMessage() {
    host.breaks = true;
    Proc parent = proc(4);
    Proc child = child(5, parent);
    holds(parent, LockRequest.shared(A));
    parks(child, LockRequest.exclusive(A));

    LockCycle found = host.deadlocks.get(0);
    assertEquals(5, found.victim());
    assertEquals(List.of("p5"), host.takeWoken());
    assertFalse(locks.isWaiting(child), "taken off the queue");
    assertEquals(List.of(), locks.cycles());
    LockDeadlockException e =
        assertThrows(
            LockDeadlockException.class, () -> locks.acquire(child, LockRequest.exclusive(A)));
    assertTrue(
        e.getMessage().contains("procedure 4 (T) waits for its descendant procedure 5"),
        e::getMessage);
    assertTrue(
        e.getMessage().endsWith("procedure 5, the youngest waiting for a lock, fails to break it"),
        e::getMessage);
    assertTrue(locks.waitReason(child).isEmpty(), "thrown once, then forgotten");
  }

  /**
   * Two trees that hold their locks across steps, each child asking for the other tree's lock: P1
   * holds A and waits for C1, which waits for B; P2 holds B and waits for C2, which waits for A.
   */
  @Test
  void childrenAskingForEachOthersTreesLocksCloseACycleOfFour() {
    host.breaks = true;
    Proc p1 = proc(1);
    Proc p2 = proc(2);
    holds(p1, LockRequest.exclusive(A));
    holds(p2, LockRequest.exclusive(B));
    Proc c1 = child(3, p1);
    parks(c1, LockRequest.exclusive(B));
    assertEquals(0, locks.deadlockCount(), "one child waiting for the other tree is no cycle");
    Proc c2 = child(4, p2);
    parks(c2, LockRequest.exclusive(A));

    assertEquals(1, locks.deadlockCount());
    LockCycle found = host.deadlocks.get(0);
    assertEquals(List.of(4L, 1L, 3L, 2L), found.procIds());
    assertEquals(4, found.victim(), "the youngest waiter");
    assertTrue(locks.isWaiting(c1), "the other waiter keeps its place");
    assertEquals(List.of("p4"), host.takeWoken());
  }

  /**
   * A waiter that may not take a compatible lock before an earlier waiter (FIFO) waits for it: P
   * holds X and waits for its child C; R holds Y shared and waits for its child D, which waits for
   * X; Q waits for Y exclusively behind R; C asks Y shared, behind Q. C - Q - R - D - P - C.
   */
  @Test
  void aQueueOrderEdgeCanCloseACycle() {
    Proc p = proc(1);
    Proc r = proc(2);
    holds(p, LockRequest.exclusive(X));
    holds(r, LockRequest.shared(Y));
    Proc q = proc(3);
    parks(q, LockRequest.exclusive(Y));
    Proc d = child(4, r);
    parks(d, LockRequest.exclusive(X));
    assertEquals(0, locks.deadlockCount());
    Proc c = child(5, p);
    parks(c, LockRequest.shared(Y));

    assertEquals(1, locks.deadlockCount());
    LockCycle found = host.deadlocks.get(0);
    assertEquals(List.of(5L, 3L, 2L, 4L, 1L), found.procIds());
    assertEquals(LockCycle.Reason.QUEUED_BEHIND, found.links().get(0).reason());
    assertEquals(1, locks.cycles().size());
  }

  @Test
  void aWaiterThatMayNotFailIsPassedOverAndWithoutAnotherTheCycleStays() {
    host.breaks = true;
    Proc parent = proc(4);
    Proc child = child(5, parent);
    host.unfailable.add(child);
    holds(parent, LockRequest.shared(A));
    parks(child, LockRequest.exclusive(A));

    assertEquals(1, locks.deadlockCount());
    assertFalse(host.deadlocks.get(0).broken());
    assertTrue(locks.isWaiting(child));
    assertEquals(List.of(), host.takeWoken());
  }

  @Test
  void contentionWithoutACycleIsNoDeadlock() {
    host.breaks = true;
    Proc parent = proc(1);
    holds(parent, LockRequest.exclusive(A));
    // a child covered by its parent's exclusive lock takes it without waiting
    holds(child(2, parent), LockRequest.exclusive(A));
    Proc other = proc(3);
    parks(other, LockRequest.exclusive(A));
    Proc sibling = child(4, proc(5));
    holds(sibling, LockRequest.exclusive(B));
    parks(child(6, proc(7)), LockRequest.shared(B));
    parks(proc(8), LockRequest.exclusive(A));

    assertEquals(0, locks.deadlockCount());
    assertEquals(List.of(), locks.cycles());
    assertEquals(List.of(), host.takeWoken());
  }
}
