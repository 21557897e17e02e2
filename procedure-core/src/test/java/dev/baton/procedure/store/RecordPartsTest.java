package dev.baton.procedure.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Parts deltas applied one after another give the parts a plain map gives, whether the complete
 * value is read after every delta, now and then, or only at the end.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RecordPartsTest {
  private static final int INDEXES = 40;
  private static final int DELTAS = 2_000;
  private static final long SEED = 20261127L;

  private static void assertSameParts(Map<Integer, byte[]> expected, RecordParts actual) {
    assertEquals(expected.keySet(), actual.parts().keySet());
    for (Map.Entry<Integer, byte[]> e : expected.entrySet()) {
      assertArrayEquals(e.getValue(), actual.parts().get(e.getKey()), "part " + e.getKey());
    }
  }

  private static void run(int readEvery) {
    Random random = new Random(SEED);
    TreeMap<Integer, byte[]> reference = new TreeMap<>();
    RecordParts stored = RecordParts.NONE;
    for (int step = 1; step <= DELTAS; step++) {
      Map<Integer, byte[]> put = new TreeMap<>();
      for (int i = random.nextInt(3); i > 0; i--) {
        put.put(random.nextInt(INDEXES), ("s" + step + "i" + i).getBytes(StandardCharsets.UTF_8));
      }
      int[] drops = random.nextInt(4) == 0 ? new int[] {random.nextInt(INDEXES)} : new int[0];
      for (int d : drops) {
        reference.remove(d);
      }
      reference.putAll(put);
      stored = RecordParts.delta(put, drops).applyTo(stored);
      assertTrue(stored.isComplete());
      if (readEvery > 0 && step % readEvery == 0) {
        assertSameParts(reference, stored);
      }
    }
    assertSameParts(reference, stored);
  }

  @Test
  void deltasAppliedInTurnGiveWhatAMapGivesHoweverOftenTheyAreRead() {
    run(1);
    run(7);
    run(0);
  }

  @Test
  void aDeltaAppliesToCompletePartsOnly() {
    RecordParts delta = RecordParts.delta(Map.of(), new int[] {1});
    assertThrows(IllegalArgumentException.class, () -> delta.applyTo(delta));
    assertThrows(
        IllegalArgumentException.class, () -> RecordParts.complete(Map.of(-1, new byte[0])));
    RecordParts complete = RecordParts.complete(Map.of(3, new byte[] {3}));
    assertEquals(complete, complete.applyTo(RecordParts.NONE), "complete parts replace");
  }
}
