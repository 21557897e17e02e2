package dev.baton.procedure.store;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Run in a separate JVM: tries to lock a store's lock file the way another process's store would.
 * Exit code {@link #GOT_LOCK} or {@link #LOCKED_ELSEWHERE}.
 */
final class LockProbe {
  static final int GOT_LOCK = 0;
  static final int LOCKED_ELSEWHERE = 3;

  private LockProbe() {}

  public static void main(String[] args) throws Exception {
    try (FileChannel channel =
        FileChannel.open(Path.of(args[0]), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      FileLock lock = channel.tryLock();
      System.exit(lock != null ? GOT_LOCK : LOCKED_ELSEWHERE);
    }
  }

  /** Runs the probe on {@code lockFile} in a new JVM and returns its exit code. */
  static int probe(Path lockFile, Duration timeout) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classes =
        Path.of(LockProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI())
            .toString();
    Process process =
        new ProcessBuilder(java, "-cp", classes, LockProbe.class.getName(), lockFile.toString())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("lock probe did not finish within " + timeout);
    }
    return process.exitValue();
  }
}
