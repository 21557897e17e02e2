package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** One leader change per term in which a leader became known; elections in progress are not. */
@Timeout(10)
class LeaderChangesTest {
  private final LeaderChanges changes = new LeaderChanges();

  @Test
  void countsTheFirstLeaderAndEachLaterTermsLeaderOnce() {
    assertEquals(0, changes.count());
    assertFalse(changes.observed("a", null, 1), "leader unknown while electing");
    assertTrue(changes.observed("a", "b", 1), "first leader known");
    assertFalse(changes.observed("a", "b", 1), "same leader, same term: told again");
    assertFalse(changes.observed("a", null, 2), "b lost it; an election runs");
    assertTrue(changes.observed("a", "c", 2), "another node won");
    assertTrue(changes.observed("a", "c", 4), "the same node re-elected in a later term");
    assertFalse(changes.observed("a", "c", 3), "a stale term of the same leader");
    assertEquals(3, changes.count());
  }
}
