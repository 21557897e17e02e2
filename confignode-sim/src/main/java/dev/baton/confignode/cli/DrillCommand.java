package dev.baton.confignode.cli;

import dev.baton.confignode.drill.Drill;
import java.io.PrintStream;
import java.util.List;

/**
 * {@code confignode-sim drill [--nodes 3] [--datanodes 3] [--procedures N] [--keep-dir]}: the
 * project's main job (see {@link Drill}). Exit code 0 only if every invariant holds.
 */
final class DrillCommand {
  static final String NAME = "drill";
  static final int EXIT_VIOLATIONS = 1;
  static final int MAX_NODES = 7;
  static final int MAX_PROCEDURES = 10_000;

  static final List<CommandLineFlags.Flag> FLAGS =
      List.of(
          new CommandLineFlags.Flag("nodes", "N", "ConfigNode processes (default 3)", false),
          new CommandLineFlags.Flag("datanodes", "N", "DataNode processes (default 3)", false),
          new CommandLineFlags.Flag(
              "procedures",
              "N",
              "workload size (default " + Drill.Settings.DEFAULT_PROCEDURES + ")",
              false),
          new CommandLineFlags.Flag("keep-dir", "true", "keep logs and data afterwards", false));

  private DrillCommand() {}

  static int run(String[] args, PrintStream out, PrintStream err) {
    if (CommandLineFlags.wantsHelp(args)) {
      out.println(usage());
      return 0;
    }
    Drill.Settings settings;
    try {
      CommandLineFlags flags = CommandLineFlags.parse(NAME, FLAGS, args);
      settings =
          new Drill.Settings(
              flags.string("nodes") == null
                  ? Drill.Settings.DEFAULT_NODES
                  : flags.intValue("nodes", 3, MAX_NODES),
              flags.string("datanodes") == null
                  ? Drill.Settings.DEFAULT_DATANODES
                  : flags.intValue("datanodes", 3, MAX_NODES),
              flags.string("procedures") == null
                  ? Drill.Settings.DEFAULT_PROCEDURES
                  : flags.intValue("procedures", 1, MAX_PROCEDURES),
              "true".equals(flags.string("keep-dir")));
    } catch (UsageException e) {
      return CommandLineFlags.usageError(NAME, e, usage(), err);
    }
    return LocalJob.run(
        NAME, () -> new Drill(settings, out), drill -> drill.run() ? 0 : EXIT_VIOLATIONS, err);
  }

  static String usage() {
    return "usage: confignode-sim "
        + NAME
        + " [--nodes N] [--datanodes N] [--procedures N] [--keep-dir true]"
        + System.lineSeparator()
        + CommandLineFlags.describe(FLAGS);
  }
}
