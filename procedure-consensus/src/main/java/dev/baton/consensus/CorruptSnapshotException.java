package dev.baton.consensus;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A procedure snapshot file that cannot be loaded. Names the file, so an operator can move it
 * aside; a node whose latest snapshot is corrupt does not start rather than run on partial state.
 *
 * <p>Moving the file (and its {@code .md5}) aside is enough while the node's log still holds the
 * entries the snapshot covered (no purge behind it yet): the node replays them on start. Otherwise
 * take the node out of the group and add it back with empty storage, so the leader sends it a
 * snapshot. Do not just wipe the storage and restart the node under the same id: a Raft peer must
 * not lose entries it acknowledged, and the Ratis 3.3.0 leader never moves its next index for that
 * peer below what the peer had acknowledged, so the wiped peer can stay behind until the leader
 * changes (CorruptionTest shows it).
 */
public class CorruptSnapshotException extends IOException {
  private final Path file;

  public CorruptSnapshotException(Path file, String what) {
    super("corrupt procedure snapshot " + file + ": " + what);
    this.file = file;
  }

  public Path file() {
    return file;
  }
}
