package dev.baton.confignode.hosts;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the commands that build and change the hosts: {@code ip} (iproute2, found on the {@code
 * PATH} or in the system directories root's shell looks in), each with a time bound, its output
 * read and logged at debug.
 */
final class HostCommands {
  private static final Logger LOG = LoggerFactory.getLogger(HostCommands.class);

  /** How long one {@code ip} command may take. */
  static final Duration COMMAND_WAIT = Duration.ofSeconds(10);

  /** Where {@code ip} is looked for after the {@code PATH}: a user's PATH often lacks them. */
  private static final List<String> SYSTEM_DIRS = List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin");

  /** The user id of root. */
  private static final int ROOT_UID = 0;

  /** What a command printed (its standard output and error together) and how it exited. */
  record Result(int exitCode, String output, boolean timedOut) {
    boolean ok() {
      return !timedOut && exitCode == 0;
    }
  }

  private final String ip;

  private HostCommands(String ip) {
    this.ip = ip;
  }

  /**
   * The runner, once it is sure it may: the process runs as root and {@code ip} exists.
   *
   * @throws IllegalStateException saying what is missing
   */
  static HostCommands require() {
    List<String> missing = new ArrayList<>();
    if (uid() != ROOT_UID) {
      missing.add("root (this process runs as uid " + uid() + ")");
    }
    String ip = find("ip");
    if (ip == null) {
      missing.add("the 'ip' command of iproute2 (apt-get install iproute2)");
    }
    if (!missing.isEmpty()) {
      throw new IllegalStateException(
          "hosts in network namespaces need " + String.join(" and ", missing));
    }
    return new HostCommands(ip);
  }

  /** {@code ip ARGS}; fails unless it exits with 0. */
  String ip(String... args) {
    Result r = run(ipCommand(List.of(args)), COMMAND_WAIT);
    if (!r.ok()) {
      throw new IllegalStateException(
          "ip "
              + String.join(" ", args)
              + (r.timedOut() ? " timed out" : " failed (" + r.exitCode() + "): " + r.output()));
    }
    return r.output();
  }

  /** {@code ip ARGS}, its failure only logged: for removing what may be gone already. */
  Result ipQuietly(String... args) {
    Result r = run(ipCommand(List.of(args)), COMMAND_WAIT);
    if (!r.ok()) {
      LOG.debug("ip {}: {} {}", String.join(" ", args), r.exitCode(), r.output().strip());
    }
    return r;
  }

  /** The command line that runs {@code command} in the namespace {@code ns}. */
  List<String> inNamespace(String ns, List<String> command) {
    List<String> cmd = new ArrayList<>(ipCommand(List.of("netns", "exec", ns)));
    cmd.addAll(command);
    return cmd;
  }

  private List<String> ipCommand(List<String> args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(ip);
    cmd.addAll(args);
    return cmd;
  }

  /** Runs {@code command}, killing it after {@code bound}. */
  static Result run(List<String> command, Duration bound) {
    LOG.debug("run {}", command);
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("LC_ALL", "C");
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not run " + command, e);
    }
    CompletableFuture<String> output = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try (InputStream in = p.getInputStream()) {
                output.complete(new String(in.readAllBytes(), StandardCharsets.UTF_8));
              } catch (IOException e) {
                output.completeExceptionally(e);
              }
            },
            "host-command-output");
    reader.setDaemon(true);
    reader.start();
    try {
      boolean exited = p.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS);
      if (!exited) {
        p.destroyForcibly();
        p.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS);
      }
      Result r =
          new Result(
              exited ? p.exitValue() : -1,
              output.get(bound.toMillis(), TimeUnit.MILLISECONDS),
              !exited);
      LOG.debug("exit {}{} {}", r.exitCode(), r.timedOut() ? " (timed out)" : "", r.output());
      return r;
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + command, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("could not read the output of " + command, e);
    }
  }

  private static int uid() {
    try {
      return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    } catch (IOException | UnsupportedOperationException e) {
      return -1;
    }
  }

  /** The path of executable {@code name} on the PATH or in a system directory; null if none. */
  private static String find(String name) {
    List<String> dirs = new ArrayList<>();
    String path = System.getenv("PATH");
    if (path != null) {
      dirs.addAll(List.of(path.split(":")));
    }
    dirs.addAll(SYSTEM_DIRS);
    for (String dir : dirs) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir, name);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    return null;
  }
}
