package dev.baton.confignode.cli;

import java.io.IOException;
import java.io.PrintStream;

/**
 * Runs a command's job that owns local processes and a directory (drill, bench): closed when done,
 * and by a shutdown hook if the JVM is stopped meanwhile (Ctrl-C), so no process outlives the
 * command. A failure is one line on stderr and exit {@link #EXIT_FAILED}, never a stack trace.
 */
final class LocalJob {
  static final int EXIT_FAILED = 4;

  /** Creates the job (nothing runs yet). */
  @FunctionalInterface
  interface Opener<J extends AutoCloseable> {
    J open() throws IOException;
  }

  /** Runs the job; returns the exit code. */
  @FunctionalInterface
  interface Body<J> {
    int run(J job) throws Exception;
  }

  private LocalJob() {}

  static <J extends AutoCloseable> int run(
      String name, Opener<J> opener, Body<J> body, PrintStream err) {
    try (J job = opener.open()) {
      Thread cleanup = new Thread(() -> closeQuietly(job), name + "-cleanup");
      Runtime.getRuntime().addShutdownHook(cleanup);
      try {
        return body.run(job);
      } finally {
        removeHook(cleanup);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println(name + ": interrupted");
      return EXIT_FAILED;
    } catch (Exception e) {
      err.println(name + ": failed: " + e.getMessage());
      return EXIT_FAILED;
    }
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs anyway; closing twice is harmless
    }
  }

  private static void closeQuietly(AutoCloseable job) {
    try {
      job.close();
    } catch (Exception e) {
      // the JVM is exiting; nothing left to tell
    }
  }
}
