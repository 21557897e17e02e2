package dev.baton.confignode.datanode;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.baton.confignode.http.Json;
import dev.baton.procedure.store.DurableFiles;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files of a DataNode's data directory: a snapshot ({@value #SNAPSHOT_FILE}, the whole durable
 * state as JSON, replaced atomically) and a journal ({@value #JOURNAL_FILE}, one JSON {@link
 * JournalLine} per line, fsynced before a command is answered). After {@code snapshotEvery} lines
 * the state is snapshotted and the journal emptied. Recovery reads the snapshot and applies the
 * journal lines after it; an incomplete last write (a crash mid-append, never answered) is cut off,
 * damage before the last line is a {@link CorruptDataDirException}. A lock file keeps a second
 * DataNode off a directory in use.
 */
final class DataNodeJournal implements Closeable {
  static final String SNAPSHOT_FILE = "state.json";
  static final String SNAPSHOT_TEMP_FILE = "state.json.tmp";
  static final String JOURNAL_FILE = "journal.jsonl";
  static final String LOCK_FILE = "datanode.lock";

  private static final Logger LOG = LoggerFactory.getLogger(DataNodeJournal.class);
  private static final byte NEWLINE = '\n';

  private final Path dir;
  private final int snapshotEvery;
  private final FileChannel lockChannel;
  private final FileLock lock;
  private final FileChannel journal;
  private final DataNodeCore recovered;
  private int linesSinceSnapshot;

  private DataNodeJournal(
      Path dir,
      int snapshotEvery,
      FileChannel lockChannel,
      FileLock lock,
      FileChannel journal,
      DataNodeCore recovered,
      int linesSinceSnapshot) {
    this.dir = dir;
    this.snapshotEvery = snapshotEvery;
    this.lockChannel = lockChannel;
    this.lock = lock;
    this.journal = journal;
    this.recovered = recovered;
    this.linesSinceSnapshot = linesSinceSnapshot;
  }

  /** Opens (creating if needed) and recovers the data directory of {@code config}. */
  static DataNodeJournal open(DataNodeConfig config) throws IOException {
    Path dir = config.dataDir();
    DurableFiles.createPrivateDirectories(dir);
    Path lockFile = dir.resolve(LOCK_FILE);
    FileChannel lockChannel =
        FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock = null;
    try {
      try {
        lock = lockChannel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null;
      }
      if (lock == null) {
        throw new IOException(
            "data directory "
                + dir
                + " is in use by another running DataNode (lock "
                + lockFile
                + "); stop it first or use another --data-dir");
      }
      Files.deleteIfExists(dir.resolve(SNAPSHOT_TEMP_FILE));
      DataNodeCore core = readSnapshot(config);
      Path journalFile = dir.resolve(JOURNAL_FILE);
      int lines = replayJournal(journalFile, core);
      FileChannel journal =
          FileChannel.open(journalFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      journal.position(journal.size());
      return new DataNodeJournal(
          dir, config.snapshotEvery(), lockChannel, lock, journal, core, lines);
    } catch (IOException | RuntimeException e) {
      if (lock != null) {
        lock.release();
      }
      lockChannel.close();
      throw e;
    }
  }

  /** The state read back by {@link #open}. */
  DataNodeCore recovered() {
    return recovered;
  }

  /** Appends lines and forces them to disk; when this returns they survive a crash. */
  void append(List<JournalLine> lines) throws IOException {
    if (lines.isEmpty()) {
      return;
    }
    StringBuilder text = new StringBuilder();
    for (JournalLine line : lines) {
      text.append(Json.STRICT.writeValueAsString(line)).append((char) NEWLINE);
    }
    ByteBuffer buffer = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8));
    while (buffer.hasRemaining()) {
      journal.write(buffer);
    }
    journal.force(false);
    linesSinceSnapshot += lines.size();
  }

  boolean snapshotDue() {
    return linesSinceSnapshot >= snapshotEvery;
  }

  /**
   * Replaces the snapshot with {@code state} and empties the journal. A crash in between leaves
   * journal lines the snapshot already holds; recovery skips them by sequence number.
   */
  void snapshot(DurableState state) throws IOException {
    writeSnapshot(dir, state);
    journal.truncate(0);
    journal.force(true);
    linesSinceSnapshot = 0;
  }

  @Override
  public void close() throws IOException {
    try {
      journal.close();
    } finally {
      try {
        lock.release();
      } finally {
        lockChannel.close();
      }
    }
  }

  private static DataNodeCore readSnapshot(DataNodeConfig config) throws IOException {
    Path dir = config.dataDir();
    Path file = dir.resolve(SNAPSHOT_FILE);
    if (!Files.exists(file)) {
      if (Files.exists(dir.resolve(JOURNAL_FILE)) && Files.size(dir.resolve(JOURNAL_FILE)) > 0) {
        throw new CorruptDataDirException(
            "data directory " + dir + " has a journal but no " + SNAPSHOT_FILE);
      }
      DataNodeCore fresh =
          new DataNodeCore(config.id(), config.ledgerCapacity(), config.historyCapacity());
      writeSnapshot(dir, fresh.durable());
      LOG.info("DataNode {} created data directory {}", config.id(), dir);
      return fresh;
    }
    DurableState state;
    try {
      state = Json.STRICT.readValue(file.toFile(), DurableState.class);
    } catch (JsonProcessingException e) {
      throw new CorruptDataDirException(
          "snapshot " + file + " is unreadable: " + e.getOriginalMessage(), e);
    }
    if (state == null || state.format() != DurableState.FORMAT) {
      throw new CorruptDataDirException(
          "snapshot "
              + file
              + " has format "
              + (state == null ? "none" : state.format())
              + "; this DataNode reads format "
              + DurableState.FORMAT);
    }
    if (state.dataNodeId() != config.id()) {
      throw new CorruptDataDirException(
          "data directory "
              + dir
              + " belongs to DataNode "
              + state.dataNodeId()
              + ", not "
              + config.id()
              + "; use the right --id or another --data-dir");
    }
    return DataNodeCore.restore(state, config.ledgerCapacity(), config.historyCapacity());
  }

  /**
   * Applies the journal's lines after the snapshot to {@code core}, cuts off a torn tail, and
   * returns the number of lines kept.
   */
  private static int replayJournal(Path file, DataNodeCore core) throws IOException {
    if (!Files.exists(file)) {
      return 0;
    }
    byte[] bytes = Files.readAllBytes(file);
    int pos = 0;
    int lineNo = 0;
    while (pos < bytes.length) {
      int end = indexOf(bytes, NEWLINE, pos);
      if (end < 0) {
        cutTail(file, pos, bytes.length, "an incomplete last line");
        break;
      }
      lineNo++;
      JournalLine line = parse(bytes, pos, end);
      if (line == null) {
        if (anyLineParses(bytes, end + 1)) {
          throw new CorruptDataDirException(
              "journal " + file + " line " + lineNo + " is unreadable and is not the last one");
        }
        cutTail(file, pos, bytes.length, "an unreadable last write at line " + lineNo);
        lineNo--;
        break;
      }
      if (line.seq() > core.seq()) {
        try {
          core.apply(line);
        } catch (IllegalStateException e) {
          throw new CorruptDataDirException(
              "journal " + file + " line " + lineNo + ": " + e.getMessage(), e);
        }
      }
      pos = end + 1;
    }
    return lineNo;
  }

  private static JournalLine parse(byte[] bytes, int from, int to) {
    try {
      JournalLine line = Json.STRICT.readValue(bytes, from, to - from, JournalLine.class);
      return line == null || line.change() == null ? null : line;
    } catch (IOException e) {
      return null;
    }
  }

  private static boolean anyLineParses(byte[] bytes, int from) {
    int pos = from;
    while (pos < bytes.length) {
      int end = indexOf(bytes, NEWLINE, pos);
      if (end < 0) {
        return false;
      }
      if (parse(bytes, pos, end) != null) {
        return true;
      }
      pos = end + 1;
    }
    return false;
  }

  private static void cutTail(Path file, int keep, int length, String what) throws IOException {
    LOG.warn(
        "journal {} ends with {} ({} bytes), left by a crash during a write that was never"
            + " acknowledged; cutting it off",
        file,
        what,
        length - keep);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.truncate(keep);
      ch.force(true);
    }
  }

  private static int indexOf(byte[] bytes, byte b, int from) {
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }

  private static void writeSnapshot(Path dir, DurableState state) throws IOException {
    Path temp = dir.resolve(SNAPSHOT_TEMP_FILE);
    byte[] bytes = Json.STRICT.writeValueAsBytes(state);
    try (FileChannel ch =
        FileChannel.open(
            temp,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      ByteBuffer buffer = ByteBuffer.wrap(bytes);
      while (buffer.hasRemaining()) {
        ch.write(buffer);
      }
      ch.force(true);
    }
    DurableFiles.publish(temp, dir.resolve(SNAPSHOT_FILE));
  }
}
