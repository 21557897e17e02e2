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

/**
 * The chaos schedule: replayable from its seed, never faulting a majority but for bounded, isolated
 * whole-cluster outages, and using every kind of fault.
 */
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
    assertEquals(processFaults(), seen);
  }

  /** No other ConfigNode fault of {@code s} overlaps {@code e}. */
  static void assertNoConfigNodeFaultOverlaps(long seed, FaultSchedule s, FaultEvent e) {
    for (FaultEvent other : s.events()) {
      boolean overlaps =
          other != e
              && other.action().hitsConfigNode()
              && other.atMillis() < e.healAtMillis()
              && e.atMillis() < other.healAtMillis();
      assertFalse(overlaps, "seed " + seed + ": " + other + " overlaps " + e);
    }
  }

  /** The kinds of fault of a run without network faults. */
  static Set<FaultEvent.Action> processFaults() {
    Set<FaultEvent.Action> all = EnumSet.allOf(FaultEvent.Action.class);
    all.removeIf(a -> a.partition().isPresent());
    return all;
  }

  @Test
  void networkFaultsJoinTheScheduleOnlyWhenAskedForAndStandApart() {
    Set<FaultEvent.Action> seen = EnumSet.noneOf(FaultEvent.Action.class);
    for (long seed = 0; seed < 20; seed++) {
      FaultSchedule s =
          FaultSchedule.generate(
              seed, MILLIS, 5, 3, FaultSchedule.DEFAULT_MAX_MAJORITY_LOSS_MILLIS, true);
      assertEquals(
          s.events(),
          FaultSchedule.generate(
                  seed, MILLIS, 5, 3, FaultSchedule.DEFAULT_MAX_MAJORITY_LOSS_MILLIS, true)
              .events(),
          "seed " + seed + " replays");
      for (FaultEvent e : s.events()) {
        seen.add(e.action());
        if (e.action().partition().isPresent()) {
          assertNoConfigNodeFaultOverlaps(seed, s, e);
        }
      }
      assertTrue(
          FaultSchedule.generate(seed, MILLIS, 5, 3).events().stream()
              .allMatch(e -> e.action().partition().isEmpty()),
          "no partition without network faults, seed " + seed);
    }
    assertEquals(EnumSet.allOf(FaultEvent.Action.class), seen);
    assertTrue(
        FaultSchedule.generate(3, MILLIS, 3, 3, 0, true).events().stream()
            .noneMatch(e -> e.action() == FaultEvent.Action.PARTITION_SPLIT_LEADER_MINORITY),
        "a 2 | 3 split needs 5 ConfigNodes");
  }

  @Test
  void aWholeClusterOutageKeepsItsBoundStandsAloneAndIsSpaced() {
    long bound = 2_500;
    int outages = 0;
    for (long seed = 0; seed < 50; seed++) {
      FaultSchedule s = FaultSchedule.generate(seed, MILLIS, 3, 3, bound);
      assertTrue(s.longestMajorityLossMillis() <= bound, "seed " + seed);
      long lastHeal = Long.MIN_VALUE / 2;
      for (FaultEvent e : s.events()) {
        if (e.action() != FaultEvent.Action.KILL_ALL_NODES) {
          continue;
        }
        outages++;
        assertTrue(
            e.atMillis() >= lastHeal + FaultSchedule.MIN_OUTAGE_SPACING_MILLIS,
            "seed " + seed + ": outages too close at " + e);
        lastHeal = e.healAtMillis();
        assertNoConfigNodeFaultOverlaps(seed, s, e);
      }
    }
    assertTrue(outages > 50, "outages scheduled in 50 runs: " + outages);
    assertTrue(
        FaultSchedule.generate(1, MILLIS, 3, 3, 0).events().stream()
            .noneMatch(e -> e.action() == FaultEvent.Action.KILL_ALL_NODES),
        "a bound of 0 schedules no outage");
  }

  @Test
  void aShortRunStillUsesEveryKindOfFault() {
    for (long seed = 0; seed < 20; seed++) {
      Set<FaultEvent.Action> seen = EnumSet.noneOf(FaultEvent.Action.class);
      FaultSchedule.generate(seed, 30_000, 3, 3).events().forEach(e -> seen.add(e.action()));
      assertEquals(processFaults(), seen, "seed " + seed);
    }
  }

  @Test
  void badSettingsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> FaultSchedule.generate(1, MILLIS, 0, 3));
    assertThrows(IllegalArgumentException.class, () -> FaultSchedule.generate(1, -1, 3, 3));
    assertThrows(IllegalArgumentException.class, () -> FaultSchedule.generate(1, MILLIS, 3, 3, -1));
  }
}
