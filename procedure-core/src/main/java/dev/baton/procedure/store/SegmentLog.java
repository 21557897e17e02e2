package dev.baton.procedure.store;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The segment files of a store directory, as the writer thread sees them: appends go to the active
 * (newest) segment, which rolls to a new file once it is full; segments are removed from the oldest
 * end only. Appended records are buffered until {@link #sync}, which writes them with one gathering
 * write and forces them to disk with one {@code force}. Used by the writer thread only.
 */
final class SegmentLog implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(SegmentLog.class);

  private final Path dir;
  private final long segmentBytes;
  private final boolean fsync;
  // called after each force of a segment file
  private final Runnable syncCounter;
  private final Deque<Long> segmentIds;
  private final List<ByteBuffer> buffered = new ArrayList<>();
  private FileChannel active;
  private long activeSize;

  private SegmentLog(
      Path dir, long segmentBytes, boolean fsync, Runnable syncCounter, List<Long> segmentIds) {
    this.dir = dir;
    this.segmentBytes = segmentBytes;
    this.fsync = fsync;
    this.syncCounter = syncCounter;
    this.segmentIds = new ArrayDeque<>(segmentIds);
  }

  /**
   * Opens the log over the recovered segments, appending to the newest; creates the first segment
   * of an empty directory. If the newest segment is empty (a crash right after a roll created it,
   * or its only record was a torn tail), the recovered {@code maxProcId} is declared in it at once,
   * as a roll would have: otherwise removing the older segments would lose the highest id.
   */
  static SegmentLog open(
      Path dir,
      List<Long> segmentIds,
      long segmentBytes,
      boolean fsync,
      Runnable syncCounter,
      long maxProcId)
      throws IOException {
    SegmentLog log = new SegmentLog(dir, segmentBytes, fsync, syncCounter, segmentIds);
    if (segmentIds.isEmpty()) {
      log.create(SegmentFormat.FIRST_SEGMENT_ID);
    } else {
      long id = segmentIds.get(segmentIds.size() - 1);
      log.active = FileChannel.open(SegmentFormat.path(dir, id), StandardOpenOption.WRITE);
      log.activeSize = log.active.size();
      log.active.position(log.activeSize);
    }
    if (log.activeSize == 0 && maxProcId > 0) {
      ByteBuffer header = SegmentFormat.encodeMaxProcId(maxProcId);
      log.buffered.add(header);
      log.activeSize += header.remaining();
      log.sync();
    }
    return log;
  }

  int segmentCount() {
    return segmentIds.size();
  }

  long oldestId() {
    return segmentIds.getFirst();
  }

  long activeId() {
    return segmentIds.getLast();
  }

  /**
   * Queues a framed record for the active segment, rolling to a new segment first if the record
   * would overflow a non-empty one. A new segment starts with a record declaring {@code maxProcId},
   * so the highest id survives the removal of older segments.
   *
   * @return the id of the segment the record goes to
   */
  long add(ByteBuffer frame, long maxProcId) throws IOException {
    if (activeSize > 0 && activeSize + frame.remaining() > segmentBytes) {
      roll(maxProcId);
    }
    buffered.add(frame);
    activeSize += frame.remaining();
    return activeId();
  }

  /** Writes every queued record and, unless fsync is off, forces the active segment to disk. */
  void sync() throws IOException {
    flush();
    force();
  }

  /** Deletes the oldest segment; the caller has checked that it holds no live record. */
  void deleteOldest() throws IOException {
    if (segmentIds.size() < 2) {
      throw new IllegalStateException("the active segment " + activeId() + " is never deleted");
    }
    Path file = SegmentFormat.path(dir, oldestId());
    Files.deleteIfExists(file);
    segmentIds.removeFirst();
    // Persist each removal before the next, so a crash never leaves a gap between segments.
    syncDirectory();
    LOG.debug("Removed procedure store segment {}", file);
  }

  @Override
  public void close() throws IOException {
    buffered.clear();
    if (active != null) {
      active.close();
      active = null;
    }
  }

  private void roll(long maxProcId) throws IOException {
    flush();
    force();
    active.close();
    active = null;
    create(activeId() + 1);
    if (maxProcId > 0) {
      ByteBuffer header = SegmentFormat.encodeMaxProcId(maxProcId);
      buffered.add(header);
      activeSize += header.remaining();
    }
  }

  private void create(long id) throws IOException {
    Path file = SegmentFormat.path(dir, id);
    active = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    segmentIds.addLast(id);
    activeSize = 0;
    syncDirectory();
    LOG.debug("Created procedure store segment {}", file);
  }

  private void flush() throws IOException {
    if (buffered.isEmpty()) {
      return;
    }
    ByteBuffer[] frames = buffered.toArray(new ByteBuffer[0]);
    int first = 0;
    while (first < frames.length) {
      active.write(frames, first, frames.length - first);
      while (first < frames.length && !frames[first].hasRemaining()) {
        first++;
      }
    }
    buffered.clear();
  }

  private void force() throws IOException {
    if (fsync) {
      active.force(false);
      syncCounter.run();
    }
  }

  /** Makes a created or deleted file name durable; not every platform can open a directory. */
  private void syncDirectory() throws IOException {
    if (!fsync) {
      return;
    }
    DurableFiles.syncDirectory(dir);
  }
}
