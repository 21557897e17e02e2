package dev.baton.confignode.local;

import dev.baton.confignode.cluster.ChildJvm;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A child JVM running a command of this jar, its output in {@code <dir>/<name>.log}. {@link #kill}
 * is SIGKILL: no shutdown hook runs, as in a crash.
 */
final class LocalProcess {
  private final ChildJvm process;

  private LocalProcess(ChildJvm process) {
    this.process = process;
  }

  static LocalProcess start(String name, Path dir, List<String> args) throws IOException {
    return new LocalProcess(ChildJvm.start(name, dir, args));
  }

  String name() {
    return process.name();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** SIGKILL, then waits until the process is gone. */
  void kill() {
    try {
      process.kill();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
