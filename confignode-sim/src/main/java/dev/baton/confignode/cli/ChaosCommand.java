package dev.baton.confignode.cli;

import dev.baton.confignode.chaos.ClusterChaosRun;
import dev.baton.confignode.chaos.FaultSchedule;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code confignode-sim chaos [--seed S] [--seconds N] [--nodes 3|5] [--datanodes N]
 * [--max-outage-ms N] [--keep-dir] [--network]}: a seeded chaos run (see {@link ClusterChaosRun}).
 * Without {@code --seed} a random seed is drawn and printed. Exit code 0 only if every invariant
 * holds.
 */
@Command(
    name = "chaos",
    description = {
      "A seeded chaos run on a local cluster.",
      "Kills, pauses and restarts ConfigNodes and DataNodes (with --network, also cuts the"
          + " network between them) under a steady workload, heals everything, then checks the"
          + " invariants. The same seed replays the same schedule."
    },
    exitCodeList = {
      "0:every invariant holds",
      "1:an invariant is violated",
      "2:bad flags",
      "4:the run could not complete"
    })
final class ChaosCommand extends CliCommand {
  static final int EXIT_VIOLATIONS = 1;
  static final int EXIT_FAILED = 4;
  static final int MAX_SECONDS = 3_600;
  static final int MAX_DATANODES = 7;

  /** Longest whole-cluster outage the flag accepts; longer ones are not chaos but an outage. */
  static final int MAX_OUTAGE_MS = 60_000;

  @Option(
      names = "--seed",
      paramLabel = "S",
      description = "seed of the schedule (default: random, printed)")
  Long seed;

  @Bounds(min = 1, max = MAX_SECONDS)
  @Option(names = "--seconds", paramLabel = "N", description = "seconds of faults")
  int seconds = ClusterChaosRun.Settings.DEFAULT_SECONDS;

  @Bounds(min = 3, max = 5)
  @Option(names = "--nodes", paramLabel = "3|5", description = "ConfigNode processes")
  int nodes = ClusterChaosRun.Settings.DEFAULT_NODES;

  @Bounds(min = 1, max = MAX_DATANODES)
  @Option(names = "--datanodes", paramLabel = "N", description = "DataNode processes")
  int dataNodes = ClusterChaosRun.Settings.DEFAULT_DATANODES;

  @Bounds(min = 0, max = MAX_OUTAGE_MS)
  @Option(
      names = "--max-outage-ms",
      paramLabel = "N",
      description =
          "longest time every ConfigNode stays killed, the bound on losing the majority;"
              + " 0: no whole-cluster outage")
  long maxOutageMillis = FaultSchedule.DEFAULT_MAX_MAJORITY_LOSS_MILLIS;

  @Option(
      names = "--keep-dir",
      arity = "0..1",
      paramLabel = "true|false",
      description = "keep logs and data afterwards")
  boolean keepDir;

  @Option(
      names = "--network",
      description =
          "network partitions in the schedule too (the same seed gives the same schedule); runs"
              + " every process on a host of its own in a network namespace: needs root and"
              + " iproute2")
  boolean network;

  @Override
  public Integer call() {
    if (nodes != 3 && nodes != 5) {
      throw usageError("--nodes must be 3 or 5, got " + nodes);
    }
    ClusterChaosRun.Settings settings =
        new ClusterChaosRun.Settings(
            seed == null ? System.nanoTime() : seed,
            seconds,
            nodes,
            dataNodes,
            keepDir,
            maxOutageMillis,
            network);
    try {
      return new ClusterChaosRun(settings, out()).run().ok() ? 0 : EXIT_VIOLATIONS;
    } catch (Exception e) {
      err().println(spec.name() + ": failed (seed " + settings.seed() + "): " + e.getMessage());
      return EXIT_FAILED;
    }
  }
}
