package dev.baton.confignode.chaos;

import java.io.IOException;
import java.util.Random;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loop of a chaos run on its own thread until stopped: one step, then a pause drawn from its
 * seeded random stream; a step without an answer is logged and the next one follows at once.
 */
abstract class PacedLoop implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(PacedLoop.class);

  private final Random random;
  private final long minPaceMillis;
  private final long maxPaceMillis;
  private final String what;
  private volatile boolean stop;

  /**
   * @param random the loop's own random stream (its steps draw from it too)
   * @param minPaceMillis shortest pause after a step
   * @param maxPaceMillis longest pause after a step
   * @param what the steps in words, for the log
   */
  PacedLoop(Random random, long minPaceMillis, long maxPaceMillis, String what) {
    this.random = random;
    this.minPaceMillis = minPaceMillis;
    this.maxPaceMillis = maxPaceMillis;
    this.what = what;
  }

  /** One step; an IOException means no answer (yet). */
  abstract void step() throws IOException, InterruptedException;

  /** The loop's random stream. */
  final Random random() {
    return random;
  }

  final void stop() {
    stop = true;
  }

  @Override
  public final void run() {
    while (!stop) {
      try {
        step();
        Thread.sleep(minPaceMillis + random.nextInt((int) (maxPaceMillis - minPaceMillis)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (IOException e) {
        LOG.info("chaos {}: no answer yet: {}", what, e.getMessage());
      } catch (RuntimeException e) {
        LOG.warn("chaos {}: unexpected answer, going on: {}", what, e.toString());
      }
    }
  }
}
