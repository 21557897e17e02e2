package dev.baton.procedure.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The lock manager on its own, with a hand-driven host: no executor, no threads, no clock. */
@Timeout(30)
class LockManagerTest {
  private static final ResourceKey DB = ResourceKey.database("db");
  private static final ResourceKey R1 = ResourceKey.region("db", "r1");
  private static final ResourceKey R2 = ResourceKey.region("db", "r2");
  private static final ResourceKey N1 = ResourceKey.node("n1");

  /** Records wake-ups and timers; the clock moves by hand. */
  static final class Host implements LockHost {
    final List<Schedulable> woken = new ArrayList<>();
    final Map<Schedulable, Long> timers = new IdentityHashMap<>();
    final Map<Schedulable, Schedulable> parents = new IdentityHashMap<>();
    final List<Schedulable> dead = new ArrayList<>();
    final List<Schedulable> unfailable = new ArrayList<>();
    final List<LockCycle> deadlocks = new ArrayList<>();
    boolean breaks;
    long now = 1_000;

    @Override
    public boolean breaksDeadlocks() {
      return breaks;
    }

    @Override
    public boolean mayFail(Schedulable proc) {
      return !unfailable.contains(proc);
    }

    @Override
    public void deadlockFound(LockCycle cycle) {
      deadlocks.add(cycle);
    }

    @Override
    public void wake(Schedulable proc) {
      woken.add(proc);
    }

    @Override
    public boolean isLive(Schedulable proc) {
      return !dead.contains(proc);
    }

    @Override
    public Schedulable parentOf(Schedulable proc) {
      return parents.get(proc);
    }

    @Override
    public long now() {
      return now;
    }

    @Override
    public void scheduleWaitTimeout(Schedulable proc, long deadline) {
      timers.put(proc, deadline);
    }

    List<String> takeWoken() {
      List<String> out = woken.stream().map(Object::toString).toList();
      woken.clear();
      return out;
    }
  }

  private final Host host = new Host();
  private final LockManager locks = new LockManager();

  @BeforeEach
  void attach() {
    locks.attach(host);
  }

  private static TestProc proc(String label) {
    return new TestProc(label);
  }

  @Test
  void sharedLocksAreSharedAndExclusiveOnesAreNot() {
    TestProc s1 = proc("s1");
    TestProc s2 = proc("s2");
    TestProc x = proc("x");
    assertEquals(LockOutcome.ACQUIRED, locks.acquire(s1, LockRequest.shared(N1)));
    assertEquals(LockOutcome.ACQUIRED, locks.acquire(s2, LockRequest.shared(N1)));
    assertEquals(LockOutcome.PARKED, locks.acquire(x, LockRequest.exclusive(N1)));
    assertTrue(locks.isWaiting(x));
    locks.release(s1);
    assertEquals(List.of(), host.takeWoken(), "one shared holder remains");
    locks.release(s2);
    assertEquals(List.of("x"), host.takeWoken());
    assertEquals(Optional.of(LockMode.EXCLUSIVE), locks.heldMode(x, N1));
    assertEquals(LockOutcome.ACQUIRED, locks.acquire(x, LockRequest.exclusive(N1)));
    assertEquals(LockOutcome.PARKED, locks.acquire(s1, LockRequest.shared(N1)));
  }

  @Test
  void regionLockTakesItsDatabaseSharedSoDatabaseExclusiveExcludesRegions() {
    TestProc r1 = proc("r1");
    TestProc r2 = proc("r2");
    TestProc drop = proc("drop");
    assertEquals(LockOutcome.ACQUIRED, locks.acquire(r1, LockRequest.exclusive(R1)));
    assertEquals(LockOutcome.ACQUIRED, locks.acquire(r2, LockRequest.exclusive(R2)));
    assertEquals(Optional.of(LockMode.SHARED), locks.heldMode(r1, DB));
    assertEquals(LockOutcome.PARKED, locks.acquire(drop, LockRequest.exclusive(DB)));
    locks.release(r1);
    assertEquals(List.of(), host.takeWoken());
    locks.release(r2);
    assertEquals(List.of("drop"), host.takeWoken());
    TestProc late = proc("late");
    assertEquals(LockOutcome.PARKED, locks.acquire(late, LockRequest.shared(R1)));
    assertTrue(locks.waitReason(late).orElseThrow().contains("database:db (SHARED) held by"));
  }

  @Test
  void releaseHandsTheLockToWaitersInArrivalOrderSharedOnesTogether() {
    TestProc holder = proc("holder");
    TestProc x1 = proc("x1");
    TestProc s2 = proc("s2");
    TestProc s3 = proc("s3");
    TestProc x4 = proc("x4");
    TestProc s5 = proc("s5");
    locks.acquire(holder, LockRequest.exclusive(N1));
    for (TestProc p : List.of(x1, s2, s3, x4, s5)) {
      LockRequest r = p.label.startsWith("x") ? LockRequest.exclusive(N1) : LockRequest.shared(N1);
      assertEquals(LockOutcome.PARKED, locks.acquire(p, r));
    }
    assertEquals(
        List.of(
            LockMode.EXCLUSIVE,
            LockMode.SHARED,
            LockMode.SHARED,
            LockMode.EXCLUSIVE,
            LockMode.SHARED),
        locks.snapshot().get(0).waiters().stream().map(LockInfo.Waiter::mode).toList());
    locks.release(holder);
    assertEquals(List.of("x1"), host.takeWoken());
    locks.release(x1);
    assertEquals(List.of("s2", "s3"), host.takeWoken(), "consecutive shared waiters together");
    locks.release(s2);
    assertEquals(List.of(), host.takeWoken());
    locks.release(s3);
    assertEquals(List.of("x4"), host.takeWoken());
    locks.release(x4);
    assertEquals(List.of("s5"), host.takeWoken());
    locks.release(s5);
    assertEquals(0, locks.size(), "an idle lock leaves the table");
  }

  @Test
  void sharedRequestsDoNotBargePastAnExclusiveWaiter() {
    TestProc reader = proc("reader");
    TestProc writer = proc("writer");
    TestProc reader2 = proc("reader2");
    assertEquals(LockOutcome.ACQUIRED, locks.acquire(reader, LockRequest.shared(DB)));
    assertEquals(LockOutcome.PARKED, locks.acquire(writer, LockRequest.exclusive(DB)));
    // compatible with the holder, but the writer waits first
    assertEquals(LockOutcome.PARKED, locks.acquire(reader2, LockRequest.shared(DB)));
    // a region lock needs the database shared: it queues behind the writer too
    TestProc region = proc("region");
    assertEquals(LockOutcome.PARKED, locks.acquire(region, LockRequest.exclusive(R1)));
    locks.release(reader);
    assertEquals(List.of("writer"), host.takeWoken());
    locks.release(writer);
    assertEquals(List.of("reader2", "region"), host.takeWoken());
  }

  @Test
  void aMultiLockRequestTakesAllOrNothingAndMovesToTheLockThatStillBlocksIt() {
    TestProc a = proc("a");
    TestProc b = proc("b");
    TestProc both = proc("both");
    ResourceKey n2 = ResourceKey.node("n2");
    locks.acquire(a, LockRequest.exclusive(N1));
    locks.acquire(b, LockRequest.exclusive(n2));
    assertEquals(LockOutcome.PARKED, locks.acquire(both, LockRequest.exclusive(N1, n2)));
    assertEquals(Optional.empty(), locks.heldMode(both, N1));
    assertEquals(Optional.empty(), locks.heldMode(both, n2));
    locks.release(a);
    assertEquals(List.of(), host.takeWoken(), "n2 still blocks it");
    assertEquals(Optional.empty(), locks.heldMode(both, N1), "waits holding nothing");
    TestProc other = proc("other");
    assertEquals(LockOutcome.ACQUIRED, locks.acquire(other, LockRequest.exclusive(N1)));
    locks.release(other);
    locks.release(b);
    assertEquals(List.of("both"), host.takeWoken());
    assertEquals(Optional.of(LockMode.EXCLUSIVE), locks.heldMode(both, N1));
    assertEquals(Optional.of(LockMode.EXCLUSIVE), locks.heldMode(both, n2));
  }

  @Test
  void aParkingProcedureGivesUpWhatItHeld() {
    TestProc p = proc("p");
    TestProc q = proc("q");
    TestProc r = proc("r");
    locks.acquire(q, LockRequest.exclusive(R2));
    assertEquals(LockOutcome.ACQUIRED, locks.acquire(p, LockRequest.exclusive(R1)));
    locks.acquire(r, LockRequest.exclusive(R1)); // waits for p
    // p asks for more in a second call, which blocks: it must not wait holding R1
    assertEquals(LockOutcome.PARKED, locks.acquire(p, LockRequest.exclusive(R2)));
    assertEquals(Optional.empty(), locks.heldMode(p, R1));
    assertEquals(List.of("r"), host.takeWoken());
  }

  @Test
  void descendantsOfAnExclusiveHolderHaveAccessWithoutQueueing() {
    TestProc drop = proc("drop");
    TestProc child = proc("child");
    TestProc grandchild = proc("grandchild");
    TestProc stranger = proc("stranger");
    host.parents.put(child, drop);
    host.parents.put(grandchild, child);
    assertEquals(LockOutcome.ACQUIRED, locks.acquire(drop, LockRequest.exclusive(DB)));
    assertEquals(LockOutcome.PARKED, locks.acquire(stranger, LockRequest.exclusive(R2)));
    assertEquals(LockOutcome.ACQUIRED, locks.acquire(child, LockRequest.exclusive(R1)));
    assertEquals(Optional.of(LockMode.EXCLUSIVE), locks.heldMode(child, R1));
    assertEquals(Optional.empty(), locks.heldMode(child, DB), "covered by its parent's lock");
    assertEquals(LockOutcome.ACQUIRED, locks.acquire(grandchild, LockRequest.shared(DB)));
    locks.release(child);
    locks.release(grandchild);
    assertEquals(List.of(), host.takeWoken());
    locks.release(drop);
    assertEquals(List.of("stranger"), host.takeWoken());
  }

  @Test
  void aTimedOutWaitFailsTheNextAcquireNamingTheLockAndItsHolder() {
    TestProc holder = proc("holder");
    TestProc waiter = proc("waiter");
    TestProc behind = proc("behind");
    locks.acquire(holder, LockRequest.exclusive(R1));
    LockRequest request = LockRequest.exclusive(R1).withWaitTimeout(Duration.ofMillis(100));
    assertEquals(LockOutcome.PARKED, locks.acquire(waiter, request));
    assertEquals(LockOutcome.PARKED, locks.acquire(behind, LockRequest.shared(R1)));
    assertEquals(1_100L, host.timers.get(waiter));
    assertEquals(null, host.timers.get(behind), "no timeout asked");
    host.now = 1_050;
    assertFalse(locks.expireWait(waiter), "not due yet");
    host.now = 1_100;
    assertTrue(locks.expireWait(waiter));
    assertFalse(locks.isWaiting(waiter));
    assertTrue(locks.waitReason(waiter).orElseThrow().startsWith("lock wait timed out"));
    LockWaitTimeoutException e =
        assertThrows(LockWaitTimeoutException.class, () -> locks.acquire(waiter, request));
    assertTrue(e.getMessage().contains("region:db/r1 (EXCLUSIVE)"), e.getMessage());
    assertTrue(
        e.getMessage().contains("held by procedure 0 (EXCLUSIVE) for 100 ms"), e.getMessage());
    assertTrue(e.getMessage().contains("lock wait timeout of 100 ms"), e.getMessage());
    assertEquals(Optional.empty(), locks.waitReason(waiter));
    locks.release(holder);
    assertEquals(List.of("behind"), host.takeWoken(), "the timed-out waiter left the queue");
  }

  @Test
  void snapshotListsHoldersAndWaitersInOrderWithHoldTimes() {
    TestProc x = proc("x");
    TestProc w1 = proc("w1");
    TestProc w2 = proc("w2");
    locks.acquire(x, LockRequest.exclusive(R1));
    host.now = 1_200;
    locks.acquire(w1, LockRequest.exclusive(R1));
    locks.acquire(w2, LockRequest.shared(R1));
    host.now = 1_500;
    List<LockInfo> table = locks.snapshot();
    assertEquals(
        List.of("database:db", "region:db/r1"), table.stream().map(LockInfo::resource).toList());
    LockInfo db = table.get(0);
    assertEquals(LockMode.SHARED, db.mode());
    assertEquals(ResourceType.DATABASE, db.type());
    LockInfo r1 = table.get(1);
    assertEquals(LockMode.EXCLUSIVE, r1.mode());
    assertEquals(1_000, r1.heldSince());
    assertEquals(500, r1.heldMillis());
    assertEquals(1, r1.holders().size());
    assertEquals(
        List.of(LockMode.EXCLUSIVE, LockMode.SHARED),
        r1.waiters().stream().map(LockInfo.Waiter::mode).toList());
    assertEquals(
        List.of(1_200L, 1_200L), r1.waiters().stream().map(LockInfo.Waiter::since).toList());
    assertTrue(
        locks.waitReason(w2).orElseThrow().contains("behind 1 earlier waiter"),
        locks.waitReason(w2).toString());
  }

  @Test
  void staleProceduresAreIgnoredAndAttachEmptiesTheTable() {
    TestProc old = proc("old");
    host.dead.add(old);
    assertEquals(LockOutcome.PARKED, locks.acquire(old, LockRequest.exclusive(R1)));
    assertEquals(0, locks.size(), "a stale procedure neither holds nor waits");
    TestProc p = proc("p");
    locks.acquire(p, LockRequest.exclusive(R1));
    assertEquals(2, locks.size());
    locks.attach(host);
    assertEquals(0, locks.size());
    locks.release(p); // releasing what is not held does nothing
    assertEquals(List.of(), host.takeWoken());
  }

  @Test
  void requestsAreExpandedThroughTheHierarchyParentsFirst() {
    LockRequest r = LockRequest.builder().exclusive(R1).shared(DB).shared(R1).exclusive(N1).build();
    assertEquals(
        List.of(
            new LockRequest.Item(DB, LockMode.SHARED),
            new LockRequest.Item(N1, LockMode.EXCLUSIVE),
            new LockRequest.Item(R1, LockMode.EXCLUSIVE)),
        r.items());
    assertThrows(IllegalArgumentException.class, () -> LockRequest.builder().build());
    assertThrows(IllegalArgumentException.class, () -> ResourceKey.region("db", ""));
    assertThrows(
        IllegalArgumentException.class,
        () -> LockRequest.shared(N1).withWaitTimeout(Duration.ofMillis(-1)));
    assertEquals("region:db/r1", R1.toString());
    assertEquals(Optional.of(DB), R1.parent());
  }
}
