package dev.baton.confignode.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.datanode.DataNodeRequest.CreateRegion;
import dev.baton.confignode.datanode.DataNodeRequest.InvalidateCache;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The data directory: journal, snapshot, torn tails, damage, ownership. */
@Timeout(30)
class DataNodeJournalTest {
  private static final int ID = 4;
  private static final long NOW = 5_000;
  private static final String CALLER = "cn2";

  @TempDir Path dir;

  private DataNodeConfig config() {
    return DataNodeConfig.of(ID, dir);
  }

  @Test
  void aFreshDataDirectoryIsReadableByItsOwnerOnly() throws IOException {
    Path fresh = dir.resolve("fresh");
    try (DataNodeJournal j = DataNodeJournal.open(DataNodeConfig.of(ID, fresh))) {
      assertEquals(
          "rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(fresh)));
    }
  }

  /** Decides, persists and applies, like the server. */
  private static void run(DataNodeJournal journal, DataNodeRequest request) throws IOException {
    DataNodeCore core = journal.recovered();
    List<JournalLine> lines = new ArrayList<>();
    long seq = core.seq();
    for (Change c : core.decide(request, CALLER, NOW).changes()) {
      lines.add(new JournalLine(++seq, c));
    }
    journal.append(lines);
    lines.forEach(core::apply);
  }

  private static CreateRegion create(long term, int procId, int region) {
    return new CreateRegion(
        term, procId, "CREATE#" + procId, region, "root.db", RegionKind.SCHEMA, null);
  }

  private Path journalFile() {
    return dir.resolve(DataNodeJournal.JOURNAL_FILE);
  }

  @Test
  void reopeningReplaysTheJournalOverTheSnapshot() throws IOException {
    DurableState before;
    try (DataNodeJournal j = DataNodeJournal.open(config())) {
      run(j, create(2, 1, 10));
      run(j, create(1, 2, 11));
      run(j, new InvalidateCache(3, 3, "INV", "root.db"));
      run(j, create(3, 1, 10));
      before = j.recovered().durable();
    }
    try (DataNodeJournal j = DataNodeJournal.open(config())) {
      assertEquals(before, j.recovered().durable());
      assertEquals(3, j.recovered().highestTerm());
      assertEquals(1, j.recovered().durable().rejected().size());
      assertEquals(CALLER, j.recovered().durable().rejected().get(0).caller());
      assertTrue(
          j.recovered().durable().ledger().stream().allMatch(e -> CALLER.equals(e.caller())),
          "each applied command keeps the ConfigNode that sent it");
    }
  }

  @Test
  void snapshotEmptiesTheJournalAndKeepsTheState() throws IOException {
    DurableState before;
    try (DataNodeJournal j = DataNodeJournal.open(config().withSnapshotEvery(3))) {
      for (int i = 0; i < 4; i++) {
        run(j, create(1, i, 10 + i));
        if (j.snapshotDue()) {
          j.snapshot(j.recovered().durable());
        }
      }
      before = j.recovered().durable();
    }
    assertTrue(
        Files.readAllLines(journalFile()).size() < 3,
        "the journal must have been emptied by a snapshot");
    try (DataNodeJournal j = DataNodeJournal.open(config())) {
      assertEquals(before, j.recovered().durable());
      assertEquals(4, j.recovered().durable().regions().size());
    }
  }

  @Test
  void linesAlreadyInTheSnapshotAreSkipped() throws IOException {
    DurableState before;
    byte[] journalBeforeSnapshot;
    try (DataNodeJournal j = DataNodeJournal.open(config())) {
      run(j, create(1, 1, 10));
      run(j, new InvalidateCache(1, 2, "INV", "root.db"));
      journalBeforeSnapshot = Files.readAllBytes(journalFile());
      j.snapshot(j.recovered().durable());
      before = j.recovered().durable();
    }
    // a crash after the snapshot's rename but before the journal was emptied
    Files.write(journalFile(), journalBeforeSnapshot);
    try (DataNodeJournal j = DataNodeJournal.open(config())) {
      assertEquals(before, j.recovered().durable());
      assertEquals(1, j.recovered().durable().invalidations().size());
      run(j, create(1, 3, 11));
      before = j.recovered().durable();
    }
    try (DataNodeJournal j = DataNodeJournal.open(config())) {
      assertEquals(before, j.recovered().durable());
    }
  }

  @Test
  void tornLastWriteIsCutOffAndAppendsGoOn() throws IOException {
    DurableState before;
    try (DataNodeJournal j = DataNodeJournal.open(config())) {
      run(j, create(1, 1, 10));
      before = j.recovered().durable();
    }
    Files.write(
        journalFile(),
        "{\"seq\":3,\"change\":{\"type\":\"ter".getBytes(StandardCharsets.UTF_8),
        StandardOpenOption.APPEND);
    try (DataNodeJournal j = DataNodeJournal.open(config())) {
      assertEquals(before, j.recovered().durable());
      run(j, create(1, 2, 11));
      before = j.recovered().durable();
    }
    try (DataNodeJournal j = DataNodeJournal.open(config())) {
      assertEquals(before, j.recovered().durable());
      assertEquals(2, j.recovered().durable().regions().size());
    }
  }

  @Test
  void garbledCompleteLastLineIsCutOff() throws IOException {
    DurableState before;
    try (DataNodeJournal j = DataNodeJournal.open(config())) {
      run(j, create(1, 1, 10));
      before = j.recovered().durable();
    }
    Files.write(journalFile(), new byte[] {0, 0, 0, '\n'}, StandardOpenOption.APPEND);
    try (DataNodeJournal j = DataNodeJournal.open(config())) {
      assertEquals(before, j.recovered().durable());
    }
  }

  @Test
  void damageBeforeTheLastLineIsReportedWithTheLine() throws IOException {
    try (DataNodeJournal j = DataNodeJournal.open(config())) {
      run(j, create(1, 1, 10));
      run(j, create(1, 2, 11));
      run(j, create(1, 3, 12));
    }
    List<String> lines = new ArrayList<>(Files.readAllLines(journalFile()));
    lines.set(1, "{not json");
    Files.write(journalFile(), lines);

    CorruptDataDirException e =
        assertThrows(CorruptDataDirException.class, () -> DataNodeJournal.open(config()));
    assertTrue(e.getMessage().contains("line 2"), e.getMessage());
    assertTrue(e.getMessage().contains(DataNodeJournal.JOURNAL_FILE), e.getMessage());
  }

  @Test
  void aGapInSequenceNumbersIsCorruption() throws IOException {
    try (DataNodeJournal j = DataNodeJournal.open(config())) {
      run(j, create(1, 1, 10));
      run(j, create(1, 2, 11));
      run(j, create(1, 3, 12));
    }
    List<String> lines = new ArrayList<>(Files.readAllLines(journalFile()));
    lines.remove(1);
    Files.write(journalFile(), lines);

    CorruptDataDirException e =
        assertThrows(CorruptDataDirException.class, () -> DataNodeJournal.open(config()));
    assertTrue(e.getMessage().contains("expected journal line"), e.getMessage());
  }

  @Test
  void aDirectoryOfAnotherDataNodeIsRefused() throws IOException {
    DataNodeJournal.open(config()).close();
    CorruptDataDirException e =
        assertThrows(
            CorruptDataDirException.class,
            () -> DataNodeJournal.open(DataNodeConfig.of(ID + 1, dir)));
    assertTrue(e.getMessage().contains("belongs to DataNode " + ID), e.getMessage());
  }

  @Test
  void anUnreadableSnapshotIsReportedWithItsFile() throws IOException {
    DataNodeJournal.open(config()).close();
    Files.writeString(dir.resolve(DataNodeJournal.SNAPSHOT_FILE), "{\"format\":");
    CorruptDataDirException e =
        assertThrows(CorruptDataDirException.class, () -> DataNodeJournal.open(config()));
    assertTrue(e.getMessage().contains(DataNodeJournal.SNAPSHOT_FILE), e.getMessage());
  }

  @Test
  void aDirectoryInUseIsRefusedUntilReleased() throws IOException {
    try (DataNodeJournal j = DataNodeJournal.open(config())) {
      IOException e = assertThrows(IOException.class, () -> DataNodeJournal.open(config()));
      assertTrue(e.getMessage().contains("in use"), e.getMessage());
    }
    DataNodeJournal.open(config()).close();
  }
}
