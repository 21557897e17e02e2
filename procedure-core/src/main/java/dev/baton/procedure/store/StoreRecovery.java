package dev.baton.procedure.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds a {@link StoreIndex} from the segment files of a directory, oldest first. A bad record
 * at the end of the last segment is a write torn by a crash (never acknowledged): it is truncated
 * away. Any other bad record, or a missing segment between two others, is corruption and stops the
 * recovery with a {@link CorruptStoreException}: records are never dropped silently.
 */
final class StoreRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(StoreRecovery.class);

  /** What recovery found: the index and the ids of the segments on disk, oldest first. */
  record Result(StoreIndex index, List<Long> segmentIds) {}

  private StoreRecovery() {}

  static Result recover(Path dir) throws IOException {
    List<Long> ids = listSegments(dir);
    StoreIndex index = new StoreIndex();
    for (int i = 0; i < ids.size(); i++) {
      long id = ids.get(i);
      if (i > 0 && id != ids.get(i - 1) + 1) {
        throw new CorruptStoreException(
            SegmentFormat.path(dir, ids.get(i - 1) + 1),
            0,
            "segment missing: found segments "
                + ids.get(i - 1)
                + " and "
                + id
                + " but none in between; segments are only ever removed oldest first");
      }
      readSegment(SegmentFormat.path(dir, id), id, i == ids.size() - 1, index);
    }
    List<Long> unsettled = index.finishReplay();
    if (!unsettled.isEmpty()) {
      throw new CorruptStoreException(
          dir,
          0,
          "parts deltas of procedures "
              + unsettled
              + " change records the segments do not hold (no earlier complete write): their kept"
              + " parts are missing");
    }
    return new Result(index, ids);
  }

  /** Ids of the segment files in {@code dir}, ascending; other files are ignored. */
  static List<Long> listSegments(Path dir) throws IOException {
    List<Long> ids = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path file : files) {
        OptionalLong id = SegmentFormat.parseId(file.getFileName().toString());
        if (id.isPresent() && Files.isRegularFile(file)) {
          ids.add(id.getAsLong());
        }
      }
    }
    Collections.sort(ids);
    return ids;
  }

  private static void readSegment(Path file, long segmentId, boolean last, StoreIndex index)
      throws IOException {
    long truncateAt = -1;
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      SegmentReader reader = new SegmentReader(file, channel);
      long offset = 0;
      while (offset < reader.size()) {
        SegmentReader.Probe probe = reader.probe(offset);
        if (probe.ok()) {
          index.apply(probe.batch(), segmentId);
          offset = probe.next();
          continue;
        }
        if (!last) {
          throw new CorruptStoreException(
              file, offset, probe.problem() + " (in a segment that is not the last one)");
        }
        // A record the file ends inside is an append cut short: everything after its header is
        // its own partial payload, so there is nothing to scan (and scanning a large torn record
        // byte by byte could refuse a start after an ordinary crash).
        OptionalLong validAt =
            probe.cutOff() ? OptionalLong.empty() : reader.findValidRecordAfter(offset, probe);
        if (validAt.isPresent()) {
          throw new CorruptStoreException(
              file,
              offset,
              probe.problem()
                  + ", followed by a valid record at offset "
                  + validAt.getAsLong()
                  + ", so this is not a torn tail");
        }
        LOG.warn(
            "Procedure store segment {} has a torn or garbage tail at offset {} ({} bytes: {});"
                + " truncating it. Expected after a crash during a write: the tail was never"
                + " acknowledged. If it recurs without crashes, check the disk.",
            file,
            offset,
            reader.size() - offset,
            probe.problem());
        truncateAt = offset;
        break;
      }
    }
    if (truncateAt >= 0) {
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
        channel.truncate(truncateAt);
        channel.force(true);
      }
    }
  }
}
