package dev.baton.confignode.rolling;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Restarts a node by running an operator's command line with {@code /bin/sh -c}, its placeholders
 * filled in for the node: {@value #ID}, {@value #ADDRESS} (its admin API host:port), {@value
 * #HOST}, {@value #PORT} and {@value #PID} (the process id on its host), e.g. {@code ssh {host}
 * sudo systemctl restart baton@{id}}. The command must return once the restart is under way; a
 * non-zero exit, or no exit within its timeout, fails the restart with the command's output.
 */
public final class CommandRestartHook implements RestartHook {
  static final String ID = "{id}";
  static final String ADDRESS = "{address}";
  static final String HOST = "{host}";
  static final String PORT = "{port}";
  static final String PID = "{pid}";

  /** The placeholders a command may use. */
  public static final List<String> PLACEHOLDERS = List.of(ID, ADDRESS, HOST, PORT, PID);

  /**
   * How long the output is read on once the command exited: a process it started in the background
   * may hold its output open, and is not waited for.
   */
  static final Duration OUTPUT_GRACE = Duration.ofSeconds(1);

  /** The most of a failed command's output a failure quotes. */
  static final int OUTPUT_QUOTED_CHARS = 2_000;

  private final String template;
  private final Duration timeout;
  private final Consumer<String> output;

  /**
   * @param template the command line with placeholders
   * @param timeout how long the command may run
   * @param output hears each line the command prints (stdout and stderr)
   */
  public CommandRestartHook(String template, Duration timeout, Consumer<String> output) {
    if (template == null || template.isBlank()) {
      throw new IllegalArgumentException("the restart command is empty");
    }
    this.template = template;
    this.timeout = timeout;
    this.output = output;
  }

  /** The command line for {@code node}. */
  public String commandFor(NodeProcess node) {
    Map<String, String> values =
        Map.of(
            ID,
            node.id(),
            ADDRESS,
            node.address(),
            HOST,
            node.host(),
            PORT,
            node.port(),
            PID,
            Long.toString(node.pid()));
    String command = template;
    for (Map.Entry<String, String> v : values.entrySet()) {
      command = command.replace(v.getKey(), v.getValue());
    }
    return command;
  }

  @Override
  public void restart(NodeProcess node) throws IOException, InterruptedException {
    String command = commandFor(node);
    Process p = new ProcessBuilder("/bin/sh", "-c", command).redirectErrorStream(true).start();
    p.getOutputStream().close();
    StringBuilder printed = new StringBuilder();
    Thread reader = new Thread(() -> read(p.getInputStream(), printed), "restart-output");
    reader.setDaemon(true);
    reader.start();
    if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      p.destroyForcibly();
      throw new IOException(
          "restart command for "
              + node.id()
              + " ran longer than "
              + timeout.toSeconds()
              + " s: "
              + command
              + quoted(printed));
    }
    reader.join(OUTPUT_GRACE.toMillis());
    if (p.exitValue() != 0) {
      throw new IOException(
          "restart command for "
              + node.id()
              + " exited with "
              + p.exitValue()
              + ": "
              + command
              + quoted(printed));
    }
  }

  private void read(InputStream in, StringBuilder printed) {
    try (BufferedReader lines =
        new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        synchronized (printed) {
          printed.append(line).append('\n');
        }
        output.accept(line);
      }
    } catch (IOException e) {
      output.accept("(could not read the restart command's output: " + e.getMessage() + ")");
    }
  }

  private static String quoted(StringBuilder printed) {
    synchronized (printed) {
      String s = printed.toString().strip();
      if (s.isEmpty()) {
        return "";
      }
      return "; it printed: "
          + (s.length() > OUTPUT_QUOTED_CHARS ? s.substring(s.length() - OUTPUT_QUOTED_CHARS) : s);
    }
  }
}
