package dev.baton.confignode.cli;

import dev.baton.confignode.testing.SimCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** One in-process run of {@code confignode-sim <args>}: its exit code, stdout and stderr. */
public record CliRun(int code, String out, String err) {
  public static CliRun main(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        ConfigNodeCli.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new CliRun(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** A client command {@code args} against every node of {@code cluster}, with a token file. */
  public static CliRun against(SimCluster cluster, Path token, String... args) {
    List<String> line = new ArrayList<>(List.of(args));
    line.add("--cluster");
    line.add(cluster.nodes().stream().map(SimCluster::http).collect(Collectors.joining(",")));
    line.add("--token-file");
    line.add(token.toString());
    return main(line.toArray(String[]::new));
  }

  @Override
  public String toString() {
    return "exit " + code + "\nstdout:\n" + out + "\nstderr:\n" + err;
  }
}
