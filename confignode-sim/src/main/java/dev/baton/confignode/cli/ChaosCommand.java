package dev.baton.confignode.cli;

import dev.baton.confignode.chaos.ClusterChaosRun;
import dev.baton.confignode.chaos.FaultSchedule;
import java.io.PrintStream;
import java.util.List;

/**
 * {@code confignode-sim chaos [--seed S] [--seconds N] [--nodes 3|5] [--datanodes N]
 * [--max-outage-ms N] [--keep-dir true]}: a seeded chaos run (see {@link ClusterChaosRun}). Without
 * {@code --seed} a random seed is drawn and printed. Exit code 0 only if every invariant holds.
 */
final class ChaosCommand {
  static final String NAME = "chaos";
  static final int EXIT_VIOLATIONS = 1;
  static final int EXIT_FAILED = 4;
  static final int MAX_SECONDS = 3_600;
  static final int MAX_DATANODES = 7;

  /** Longest whole-cluster outage the flag accepts; longer ones are not chaos but an outage. */
  static final int MAX_OUTAGE_MS = 60_000;

  static final List<CommandLineFlags.Flag> FLAGS =
      List.of(
          new CommandLineFlags.Flag("seed", "S", "seed of the schedule (default: random)", false),
          new CommandLineFlags.Flag(
              "seconds",
              "N",
              "seconds of faults (default " + ClusterChaosRun.Settings.DEFAULT_SECONDS + ")",
              false),
          new CommandLineFlags.Flag("nodes", "3|5", "ConfigNode processes (default 3)", false),
          new CommandLineFlags.Flag("datanodes", "N", "DataNode processes (default 3)", false),
          new CommandLineFlags.Flag(
              "max-outage-ms",
              "N",
              "longest time every ConfigNode stays killed, the bound on losing the majority; 0: no"
                  + " whole-cluster outage (default "
                  + FaultSchedule.DEFAULT_MAX_MAJORITY_LOSS_MILLIS
                  + ")",
              false),
          new CommandLineFlags.Flag("keep-dir", "true", "keep logs and data afterwards", false));

  private ChaosCommand() {}

  static int run(String[] args, PrintStream out, PrintStream err) {
    if (CommandLineFlags.wantsHelp(args)) {
      out.println(usage());
      return 0;
    }
    ClusterChaosRun.Settings settings;
    try {
      CommandLineFlags flags = CommandLineFlags.parse(NAME, FLAGS, args);
      long seed;
      if (flags.string("seed") == null) {
        seed = System.nanoTime();
      } else {
        try {
          seed = Long.parseLong(flags.string("seed"));
        } catch (NumberFormatException e) {
          throw new UsageException("--seed must be an integer, got '" + flags.string("seed") + "'");
        }
      }
      int nodes =
          flags.string("nodes") == null
              ? ClusterChaosRun.Settings.DEFAULT_NODES
              : flags.intValue("nodes", 3, 5);
      if (nodes == 4) {
        throw new UsageException("--nodes must be 3 or 5, got 4");
      }
      settings =
          new ClusterChaosRun.Settings(
              seed,
              flags.string("seconds") == null
                  ? ClusterChaosRun.Settings.DEFAULT_SECONDS
                  : flags.intValue("seconds", 1, MAX_SECONDS),
              nodes,
              flags.string("datanodes") == null
                  ? ClusterChaosRun.Settings.DEFAULT_DATANODES
                  : flags.intValue("datanodes", 1, MAX_DATANODES),
              "true".equals(flags.string("keep-dir")),
              flags.string("max-outage-ms") == null
                  ? FaultSchedule.DEFAULT_MAX_MAJORITY_LOSS_MILLIS
                  : flags.intValue("max-outage-ms", 0, MAX_OUTAGE_MS));
    } catch (UsageException e) {
      err.println(NAME + ": " + e.getMessage());
      err.println(usage());
      return ConfigNodeCli.EXIT_USAGE;
    }
    try {
      return new ClusterChaosRun(settings, out).run().ok() ? 0 : EXIT_VIOLATIONS;
    } catch (Exception e) {
      err.println(NAME + ": failed (seed " + settings.seed() + "): " + e.getMessage());
      return EXIT_FAILED;
    }
  }

  static String usage() {
    return "usage: confignode-sim "
        + NAME
        + " [--seed S] [--seconds N] [--nodes 3|5] [--datanodes N] [--max-outage-ms N]"
        + " [--keep-dir true]"
        + System.lineSeparator()
        + CommandLineFlags.describe(FLAGS);
  }
}
