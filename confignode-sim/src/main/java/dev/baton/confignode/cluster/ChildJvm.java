package dev.baton.confignode.cluster;

import dev.baton.confignode.waits.ConfigNodeWaits;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM running one command of this jar (the class path of the current JVM), its output
 * appended to {@code <dir>/<name>.log}. It can be crashed ({@link #kill}: SIGKILL, no shutdown hook
 * runs), frozen ({@link #pause}: SIGSTOP) and thawed ({@link #resume}: SIGCONT).
 */
public final class ChildJvm {
  /**
   * The jar's entry point, named rather than referenced: the entry point depends on every command,
   * and the commands on this package.
   */
  public static final String MAIN_CLASS = "dev.baton.confignode.ConfigNodeMain";

  /** Heap of each child; small processes, many of them on one machine. */
  static final String HEAP = "-Xmx256m";

  /**
   * JVM flags added to every child's command line, separated by white space: for instance {@code
   * -XX:TieredStopAtLevel=1}, which makes a whole local cluster restart faster and its steady state
   * slower (the README's restart section has the figures).
   */
  public static final String FLAGS_PROPERTY = "baton.childJvm.flags";

  private final String name;
  private final Path log;
  private final Process process;
  private volatile boolean paused;

  private ChildJvm(String name, Path log, Process process) {
    this.name = name;
    this.log = log;
    this.process = process;
  }

  /**
   * The arguments of a {@code node} command: ConfigNode {@code id} of the cluster {@code peers}
   * ({@code ID=HOST:PORT,...}), its data in {@code dataDir}, its admin API on the port of {@code
   * httpAddress} ({@code HOST:PORT}).
   */
  public static List<String> nodeArgs(String id, String peers, Path dataDir, String httpAddress) {
    return List.of(
        "node",
        "--id",
        id,
        "--peers",
        peers,
        "--data-dir",
        dataDir.toString(),
        "--http-port",
        httpAddress.substring(httpAddress.indexOf(':') + 1));
  }

  /**
   * The arguments of a {@code datanode} command: DataNode {@code id} listening on {@code address}
   * ({@code HOST:PORT}).
   */
  public static List<String> dataNodeArgs(int id, String address, Path dataDir) {
    int colon = address.lastIndexOf(':');
    return List.of(
        "datanode",
        "--id",
        Integer.toString(id),
        "--bind",
        address.substring(0, colon),
        "--port",
        address.substring(colon + 1),
        "--data-dir",
        dataDir.toString());
  }

  /**
   * Starts {@code confignode-sim <args>} in a child JVM, which maps the classes a ConfigNode loads
   * from a shared archive ({@link NodeClassArchive}; the first start builds it) and runs with the
   * JVM flags of {@link #FLAGS_PROPERTY}, if any.
   *
   * @throws IllegalArgumentException if {@link #FLAGS_PROPERTY} holds a word that is not a flag
   */
  public static ChildJvm start(String name, Path logDir, List<String> args) throws IOException {
    return start(name, logDir, List.of(), args);
  }

  /**
   * Starts {@code confignode-sim <args>} in a child JVM through {@code launcher} (a command line
   * prefix such as {@code ip netns exec NS}, which must exec the JVM, so that the process started
   * is the JVM and signals reach it).
   */
  public static ChildJvm start(String name, Path logDir, List<String> launcher, List<String> args)
      throws IOException {
    List<String> cmd = new ArrayList<>(launcher);
    List<String> flags = new ArrayList<>(extraFlags(System.getProperty(FLAGS_PROPERTY, "")));
    flags.addAll(NodeClassArchive.jvmFlags());
    cmd.addAll(command(flags, args));
    Path log = logDir.resolve(name + ".log");
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    return new ChildJvm(name, log, p);
  }

  /**
   * The command line of a child JVM running {@code confignode-sim <args>} with {@code jvmFlags} on
   * this JVM's class path (its jars first).
   */
  static List<String> command(List<String> jvmFlags, List<String> args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(NodeClassArchive.java());
    cmd.add(HEAP);
    cmd.addAll(jvmFlags);
    cmd.add("-cp");
    cmd.add(NodeClassArchive.childClassPath());
    cmd.add(MAIN_CLASS);
    cmd.addAll(args);
    return cmd;
  }

  /**
   * The JVM flags in {@code value} (as {@link #FLAGS_PROPERTY} holds them), split at white space;
   * none if it is blank.
   *
   * @throws IllegalArgumentException if a word is not a flag (does not start with {@code -}): the
   *     child would take it for its main class and fail to start
   */
  static List<String> extraFlags(String value) {
    String trimmed = value.strip();
    if (trimmed.isEmpty()) {
      return List.of();
    }
    List<String> flags = List.of(trimmed.split("\\s+"));
    for (String f : flags) {
      if (!f.startsWith("-")) {
        throw new IllegalArgumentException(
            FLAGS_PROPERTY
                + " holds JVM flags separated by white space, each starting with '-'; '"
                + f
                + "' is not one");
      }
    }
    return flags;
  }

  public String name() {
    return name;
  }

  /** The file its output goes to. */
  public Path log() {
    return log;
  }

  public long pid() {
    return process.pid();
  }

  /** The executable the process runs now, as the system reports it; empty if unknown. */
  public String command() {
    return process.info().command().orElse("");
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  public boolean isPaused() {
    return paused;
  }

  /** SIGKILL (a stopped process dies too), then waits until the process is gone. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(ConfigNodeWaits.CHILD_EXIT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    paused = false;
  }

  /**
   * SIGQUIT: the JVM writes the stacks of all its threads (and any deadlock it finds) to its
   * output, the {@link #log}, and runs on.
   */
  public void dumpThreads() throws IOException, InterruptedException {
    signal("QUIT");
  }

  /** SIGSTOP: the process freezes, its sockets stay open, as in a long GC pause. */
  public void pause() throws IOException, InterruptedException {
    signal("STOP");
    paused = true;
  }

  /** SIGCONT: a paused process runs on. */
  public void resume() throws IOException, InterruptedException {
    signal("CONT");
    paused = false;
  }

  private void signal(String sig) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + sig, Long.toString(pid())).start();
    if (!kill.waitFor(ConfigNodeWaits.CHILD_EXIT_WAIT.toMillis(), TimeUnit.MILLISECONDS)
        || kill.exitValue() != 0) {
      kill.destroyForcibly();
      throw new IOException("kill -" + sig + " " + pid() + " (" + name + ") failed");
    }
  }
}
