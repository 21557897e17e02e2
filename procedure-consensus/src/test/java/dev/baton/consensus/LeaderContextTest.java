package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class LeaderContextTest {
  @Test
  void olderTermIsNotCurrent() {
    LeaderContext ctx = new LeaderContext("n1", 5);
    assertTrue(ctx.isCurrentFor(5));
    assertTrue(ctx.isCurrentFor(4));
    assertFalse(ctx.isCurrentFor(6));
  }

  @Test
  void rejectsBadArguments() {
    assertThrows(IllegalArgumentException.class, () -> new LeaderContext(" ", 1));
    assertThrows(IllegalArgumentException.class, () -> new LeaderContext("n1", -1));
    assertThrows(IllegalArgumentException.class, () -> new LeaderContext("n1", 1, -1));
  }

  @Test
  void theTwoArgumentFormIsTheFirstIncarnationOfItsTerm() {
    assertEquals(0, new LeaderContext("n1", 3).epoch());
    assertEquals(new LeaderContext("n1", 3, 0), new LeaderContext("n1", 3));
  }
}
