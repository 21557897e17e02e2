package dev.baton.confignode.local;

import dev.baton.confignode.ConfigNodeMain;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM running a command of this jar, its output in {@code <dir>/<name>.log}. {@link #kill}
 * is SIGKILL: no shutdown hook runs, as in a crash.
 */
final class LocalProcess {
  /** How long to wait for a killed process to be gone. */
  static final long KILL_WAIT_SECONDS = 10;

  /** Heap of each child; small processes, many of them on one machine. */
  static final String CHILD_HEAP = "-Xmx256m";

  private final String name;
  private final Process process;

  private LocalProcess(String name, Process process) {
    this.name = name;
    this.process = process;
  }

  static LocalProcess start(String name, Path dir, List<String> args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add(CHILD_HEAP);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(ConfigNodeMain.class.getName());
    cmd.addAll(args);
    Path log = dir.resolve(name + ".log");
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    return new LocalProcess(name, p);
  }

  String name() {
    return name;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** SIGKILL, then waits until the process is gone. */
  void kill() {
    process.destroyForcibly();
    try {
      process.waitFor(KILL_WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
