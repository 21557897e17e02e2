package dev.baton.confignode.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

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

  @Override
  public String toString() {
    return "exit " + code + "\nstdout:\n" + out + "\nstderr:\n" + err;
  }
}
