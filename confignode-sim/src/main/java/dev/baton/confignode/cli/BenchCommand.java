package dev.baton.confignode.cli;

import dev.baton.confignode.bench.Bench;
import dev.baton.confignode.bench.BenchResult;
import java.io.PrintStream;
import java.util.List;

/**
 * {@code confignode-sim bench [--nodes 3] [--procedures N] [--steps K] [--workers W] [--keep-dir
 * true]}: starts a local cluster of ConfigNode processes, runs {@link Bench}, prints a table and a
 * JSON line, and removes its processes and directory. Exit 0 if every procedure succeeded.
 */
final class BenchCommand {
  static final String NAME = "bench";
  static final int EXIT_NOT_ALL_SUCCEEDED = 1;
  static final int MIN_NODES = 1;
  static final int MAX_NODES = 7;
  static final int MAX_PROCEDURES = 1_000_000;
  static final int MAX_STEPS = 1_000;
  static final int MAX_WORKERS = 256;

  static final List<CommandLineFlags.Flag> FLAGS =
      List.of(
          new CommandLineFlags.Flag(
              "nodes",
              "N",
              "ConfigNode processes (default " + Bench.Settings.DEFAULT_NODES + ")",
              false),
          new CommandLineFlags.Flag(
              "procedures",
              "N",
              "procedures measured (default " + Bench.Settings.DEFAULT_PROCEDURES + ")",
              false),
          new CommandLineFlags.Flag(
              "steps",
              "K",
              "steps of each Noop (default " + Bench.Settings.DEFAULT_STEPS + ")",
              false),
          new CommandLineFlags.Flag(
              "workers",
              "W",
              "concurrent clients (default " + Bench.Settings.DEFAULT_WORKERS + ")",
              false),
          new CommandLineFlags.Flag("keep-dir", "true", "keep logs and data afterwards", false));

  private BenchCommand() {}

  static int run(String[] args, PrintStream out, PrintStream err) {
    if (CommandLineFlags.wantsHelp(args)) {
      out.println(usage());
      return 0;
    }
    Bench.Settings settings;
    try {
      CommandLineFlags flags = CommandLineFlags.parse(NAME, FLAGS, args);
      settings =
          new Bench.Settings(
              flags.intValue("nodes", Bench.Settings.DEFAULT_NODES, MIN_NODES, MAX_NODES),
              flags.intValue("procedures", Bench.Settings.DEFAULT_PROCEDURES, 1, MAX_PROCEDURES),
              flags.intValue("steps", Bench.Settings.DEFAULT_STEPS, 1, MAX_STEPS),
              flags.intValue("workers", Bench.Settings.DEFAULT_WORKERS, 1, MAX_WORKERS),
              "true".equals(flags.string("keep-dir")));
    } catch (UsageException e) {
      return CommandLineFlags.usageError(NAME, e, usage(), err);
    }
    return LocalJob.run(
        NAME,
        () -> new Bench(settings, out),
        bench -> {
          BenchResult result = bench.run();
          out.println();
          out.print(result.table());
          out.println(result.jsonLine());
          if (result.failed() > 0) {
            err.println(NAME + ": " + result.failed() + " procedures did not succeed");
            return EXIT_NOT_ALL_SUCCEEDED;
          }
          return 0;
        },
        err);
  }

  static String usage() {
    return "usage: confignode-sim "
        + NAME
        + " [--nodes N] [--procedures N] [--steps K] [--workers W] [--keep-dir true]"
        + System.lineSeparator()
        + CommandLineFlags.describe(FLAGS);
  }
}
