package dev.baton.confignode.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The chaos schedule: replayable from its seed, and never faulting a majority. */
@Timeout(10)
class FaultScheduleTest {
  static final long MILLIS = 120_000;

  @Test
  void aSeedReplaysTheSameScheduleAndAnotherSeedDiffers() {
    FaultSchedule a = FaultSchedule.generate(42, MILLIS, 3, 3);
    assertEquals(a.events(), FaultSchedule.generate(42, MILLIS, 3, 3).events());
    assertNotEquals(a.events(), FaultSchedule.generate(43, MILLIS, 3, 3).events());
    assertFalse(a.events().isEmpty());
  }

  @Test
  void configNodeFaultsNeverReachAMajorityAndAllHealInTime() {
    for (int nodes : new int[] {3, 5}) {
      for (long seed = 0; seed < 50; seed++) {
        FaultSchedule s = FaultSchedule.generate(seed, MILLIS, nodes, 3);
        assertTrue(
            s.maxConcurrentNodeFaults() <= (nodes - 1) / 2,
            "seed " + seed + " faults " + s.maxConcurrentNodeFaults() + " of " + nodes);
        for (FaultEvent e : s.events()) {
          assertTrue(e.atMillis() >= 0 && e.healAtMillis() <= MILLIS, e::toString);
          assertTrue(e.durationMillis() > 0, e::toString);
        }
      }
    }
  }

  @Test
  void aLongRunUsesEveryKindOfFault() {
    Set<FaultEvent.Action> seen = EnumSet.noneOf(FaultEvent.Action.class);
    FaultSchedule.generate(7, MILLIS * 5, 5, 3).events().forEach(e -> seen.add(e.action()));
    assertEquals(EnumSet.allOf(FaultEvent.Action.class), seen);
  }

  @Test
  void badSettingsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> FaultSchedule.generate(1, MILLIS, 0, 3));
    assertThrows(IllegalArgumentException.class, () -> FaultSchedule.generate(1, -1, 3, 3));
  }
}
