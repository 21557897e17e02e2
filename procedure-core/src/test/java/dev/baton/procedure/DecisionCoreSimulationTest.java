package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives the decision core through many seeded interleavings ({@link CoreSimulation}): each seed
 * fixes the trees, their scripts, and every choice of the scheduler, the clock, aborts and crashes,
 * so a failing seed replays exactly: {@code -Dsim.seed=N} runs only that one. {@code -Dsim.seeds=N}
 * changes how many run; {@code -Dsim.firstSeed=N} where they start.
 */
class DecisionCoreSimulationTest {
  private static final Logger LOG = LoggerFactory.getLogger(DecisionCoreSimulationTest.class);
  private static final int DEFAULT_SEEDS = 10_000;
  private static final long DEFAULT_FIRST_SEED = 1;
  private static final int TIMEOUT_SECONDS = 60;

  @Test
  @Timeout(TIMEOUT_SECONDS)
  void everySeededInterleavingKeepsTheInvariants() {
    String replay = System.getProperty("sim.seed");
    long first =
        replay != null ? Long.parseLong(replay) : Long.getLong("sim.firstSeed", DEFAULT_FIRST_SEED);
    int seeds = replay != null ? 1 : Integer.getInteger("sim.seeds", DEFAULT_SEEDS);
    long ticks = 0;
    long crashes = 0;
    long rolledBack = 0;
    long succeeded = 0;
    long undos = 0;
    for (long seed = first; seed < first + seeds; seed++) {
      try {
        CoreSimulation.Stats stats = new CoreSimulation(seed).run();
        ticks += stats.ticks();
        crashes += stats.crashes();
        rolledBack += stats.rolledBack();
        succeeded += stats.succeeded();
        undos += stats.undos();
      } catch (AssertionError | RuntimeException e) {
        fail(
            "seed "
                + seed
                + " broke an invariant (replay: -Dsim.seed="
                + seed
                + "): "
                + e.getMessage(),
            e);
      }
    }
    String summary =
        String.format(
            "%d seeds: %d ticks, %d crashes, %d trees rolled back (%d undos), %d succeeded",
            seeds, ticks, crashes, rolledBack, undos, succeeded);
    assertTrue(ticks >= seeds, summary);
    if (replay == null) {
      // the seeds reach what the invariants are about: crashes, rollbacks and successes
      assertTrue(crashes > 0 && rolledBack > 0 && undos > 0 && succeeded > 0, summary);
    }
    LOG.info(summary);
  }
}
