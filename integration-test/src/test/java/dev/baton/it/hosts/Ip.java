package dev.baton.it.hosts;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs {@code ip} for a test that looks at or plants network state itself. */
final class Ip {
  /** How long one command may take. */
  static final long WAIT_SECONDS = 10;

  private Ip() {}

  /** What {@code ip ARGS} printed (output and errors) and its exit code. */
  record Output(int exitCode, String text) {}

  static Output run(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("ip"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    if (!p.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("ip " + String.join(" ", args) + " hangs");
    }
    return new Output(
        p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
  }

  /** {@code ip ARGS}, which must succeed; its output. */
  static String ok(String... args) throws IOException, InterruptedException {
    Output o = run(args);
    if (o.exitCode() != 0) {
      throw new IOException("ip " + String.join(" ", args) + " failed: " + o.text());
    }
    return o.text();
  }

  /** The network namespaces whose names start with {@code prefix}. */
  static List<String> namespaces(String prefix) throws IOException, InterruptedException {
    return ok("netns", "list")
        .lines()
        .map(l -> l.strip().split(" ")[0])
        .filter(n -> n.startsWith(prefix))
        .toList();
  }

  /** The root namespace's links whose names start with {@code prefix}. */
  static List<String> rootLinks(String prefix) throws IOException, InterruptedException {
    return ok("-o", "link", "show")
        .lines()
        .map(l -> l.split(":\\s+"))
        .filter(f -> f.length > 1)
        .map(f -> f[1].split("@")[0])
        .filter(n -> n.startsWith(prefix))
        .toList();
  }
}
