package dev.baton.procedure.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * File system steps every durable component of Baton takes the same way: data directories that only
 * their owner can read (procedure state, Raft logs and DataNode ledgers hold what an attacker could
 * replay or forge), and files published by an atomic rename that is itself made durable by an fsync
 * of the directory (without it, a crash right after the rename may bring back the old name).
 */
public final class DurableFiles {
  private static final Logger LOG = LoggerFactory.getLogger(DurableFiles.class);

  /** Owner read, write and search: what a data directory is created with. */
  public static final Set<PosixFilePermission> PRIVATE_DIRECTORY =
      PosixFilePermissions.fromString("rwx------");

  /** Permissions that open a directory to the group or to others. */
  private static final Set<PosixFilePermission> WIDER_THAN_OWNER =
      EnumSet.of(
          PosixFilePermission.GROUP_READ,
          PosixFilePermission.GROUP_WRITE,
          PosixFilePermission.GROUP_EXECUTE,
          PosixFilePermission.OTHERS_READ,
          PosixFilePermission.OTHERS_WRITE,
          PosixFilePermission.OTHERS_EXECUTE);

  private static final boolean POSIX =
      FileSystems.getDefault().supportedFileAttributeViews().contains("posix");

  private DurableFiles() {}

  /**
   * Creates {@code dir} and its missing parents readable by their owner only ({@code rwx------},
   * whatever the umask). A directory that exists already is kept as it is; if the group or others
   * may use it, a WARN says so.
   *
   * @return whether an existing directory is open to the group or to others
   */
  public static boolean createPrivateDirectories(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return warnIfWider(dir);
    }
    Path parent = dir.toAbsolutePath().getParent();
    if (parent != null && !Files.exists(parent)) {
      createPrivateDirectories(parent);
    }
    if (!POSIX) {
      Files.createDirectories(dir);
      return false;
    }
    try {
      Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PRIVATE_DIRECTORY));
    } catch (java.nio.file.FileAlreadyExistsException raced) {
      return warnIfWider(dir);
    }
    // the attribute given at creation is masked by the umask; set the bits explicitly
    Files.setPosixFilePermissions(dir, PRIVATE_DIRECTORY);
    return false;
  }

  private static boolean warnIfWider(Path dir) throws IOException {
    if (!POSIX) {
      return false;
    }
    Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir);
    Set<PosixFilePermission> wider = EnumSet.noneOf(PosixFilePermission.class);
    wider.addAll(perms);
    wider.retainAll(WIDER_THAN_OWNER);
    if (wider.isEmpty()) {
      return false;
    }
    LOG.warn(
        "Data directory {} is {}: other users of this host may read or change what it holds;"
            + " restrict it with: chmod 700 {}",
        dir,
        PosixFilePermissions.toString(perms),
        dir);
    return true;
  }

  /**
   * Replaces {@code target} with {@code source} by an atomic rename and makes the rename durable.
   */
  public static void publish(Path source, Path target) throws IOException {
    Files.move(source, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    syncDirectory(target.toAbsolutePath().getParent());
  }

  /**
   * Makes the names created, renamed or deleted in {@code dir} durable. A platform that cannot open
   * a directory (not Linux or macOS) relies on its file system; that is logged at DEBUG.
   */
  public static void syncDirectory(Path dir) throws IOException {
    FileChannel channel;
    try {
      channel = FileChannel.open(dir, StandardOpenOption.READ);
    } catch (IOException e) {
      LOG.debug("Cannot open {} to sync it; relying on the file system", dir, e);
      return;
    }
    try (channel) {
      channel.force(true);
    }
  }
}
