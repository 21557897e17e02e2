package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The executor epochs of {@link ProcedureTable}: within a term, a fence lets only the epoch it
 * opened write; a new term starts with no fence; the fence survives a snapshot (else a node
 * replaying the log after loading a snapshot would accept a write every other node rejected).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EpochFenceTest {
  @TempDir Path dir;

  @Test
  void aFenceAdmitsOnlyItsOwnEpochOfItsTerm() {
    ProcedureTable table = new ProcedureTable();
    assertTrue(table.epochCurrent(5, 0), "no fence yet: the first executor writes with epoch 0");
    assertEquals(1, table.fence(5));
    assertFalse(table.epochCurrent(5, 0));
    assertTrue(table.epochCurrent(5, 1));
    assertEquals(2, table.fence(5));
    assertFalse(table.epochCurrent(5, 1));
    assertTrue(table.epochCurrent(5, 2));
    assertTrue(table.epochCurrent(6, 0), "a later term starts without a fence");
    assertEquals(1, table.fence(6));
    assertEquals(0, table.epochOf(5), "only the latest term's fence is kept");
  }

  @Test
  void theFenceSurvivesASnapshot() throws Exception {
    ProcedureTable table = new ProcedureTable();
    table.fence(7);
    table.fence(7);
    Path file = dir.resolve("snapshot");
    try (OutputStream out = Files.newOutputStream(file)) {
      table.writeSnapshot(out);
    }
    ProcedureTable loaded = new ProcedureTable();
    loaded.loadSnapshot(file);
    assertEquals(2, loaded.epochOf(7));
    assertFalse(loaded.epochCurrent(7, 1));
    assertTrue(loaded.epochCurrent(7, 2));
  }
}
