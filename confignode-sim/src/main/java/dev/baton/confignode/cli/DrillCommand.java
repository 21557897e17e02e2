package dev.baton.confignode.cli;

import dev.baton.confignode.cluster.ClusterHosts;
import dev.baton.confignode.drill.Drill;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code confignode-sim drill [--nodes N] [--datanodes N] [--procedures N] [--keep-dir]
 * [--partition] [--hosts loopback|netns]}: the project's main job (see {@link Drill}). Exit code 0
 * only if every invariant holds.
 */
@Command(
    name = "drill",
    description = {
      "The main job: a drill with a leader SIGKILL or partition.",
      "Starts ConfigNode and DataNode processes, runs a mixed workload, SIGKILLs the leader in the"
          + " middle, checks the invariants and prints a report."
    },
    exitCodeList = {
      "0:every invariant holds",
      "1:an invariant is violated",
      "2:bad flags",
      "4:the drill could not run"
    })
final class DrillCommand extends CliCommand {
  static final int EXIT_VIOLATIONS = 1;
  static final int MIN_NODES = 3;
  static final int MAX_NODES = 7;
  static final int MAX_PROCEDURES = 10_000;

  @Bounds(min = MIN_NODES, max = MAX_NODES)
  @Option(names = "--nodes", paramLabel = "N", description = "ConfigNode processes")
  int nodes = Drill.Settings.DEFAULT_NODES;

  @Bounds(min = MIN_NODES, max = MAX_NODES)
  @Option(names = "--datanodes", paramLabel = "N", description = "DataNode processes")
  int dataNodes = Drill.Settings.DEFAULT_DATANODES;

  @Bounds(min = 1, max = MAX_PROCEDURES)
  @Option(names = "--procedures", paramLabel = "N", description = "workload size")
  int procedures = Drill.Settings.DEFAULT_PROCEDURES;

  @Option(
      names = "--keep-dir",
      arity = "0..1",
      paramLabel = "true|false",
      description = "keep logs and data afterwards")
  boolean keepDir;

  @Option(
      names = "--insecure",
      description =
          "run the cluster without tokens and with Raft in plain text (loopback), to compare")
  boolean insecure;

  @Option(
      names = "--hosts",
      paramLabel = "loopback|netns",
      converter = HostsConverter.class,
      description =
          "where the processes run: loopback, or netns (each on a host of its own, a network"
              + " namespace; needs root and iproute2, and a secured cluster)"
              + " (default: ${DEFAULT-VALUE})")
  ClusterHosts hosts = ClusterHosts.LOOPBACK;

  @Option(
      names = "--partition",
      description =
          "cut the leader off from the other ConfigNodes (it still reaches the DataNodes) instead"
              + " of killing it, and heal once a new leader runs; needs --hosts netns")
  boolean partition;

  @Option(
      names = "--membership",
      arity = "1",
      paramLabel = "true|false",
      description =
          "replace the killed leader (its disk wiped) under a new id instead of restarting it,"
              + " and remove a follower ConfigNode and add a fresh one while phase 3 runs (not"
              + " with --partition)")
  boolean membership = true;

  @Override
  public Integer call() {
    if (insecure && hosts == ClusterHosts.NETNS) {
      throw usageError(
          "--insecure and --hosts netns do not go together: a ConfigNode serves its admin API on"
              + " an address other than loopback only with tokens");
    }
    if (partition && hosts != ClusterHosts.NETNS) {
      throw usageError(
          "--partition needs --hosts netns: the leader is cut off on the network between hosts");
    }
    Drill.Settings settings =
        new Drill.Settings(
            nodes, dataNodes, procedures, keepDir, !insecure, hosts, partition, membership);
    return LocalJob.run(
        spec.name(),
        () -> new Drill(settings, out()),
        drill -> drill.run() ? 0 : EXIT_VIOLATIONS,
        err());
  }

  /** Reads {@code loopback} or {@code netns}. */
  static final class HostsConverter implements ITypeConverter<ClusterHosts> {
    @Override
    public ClusterHosts convert(String value) {
      try {
        return ClusterHosts.of(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException("must be loopback or netns, got '" + value + "'");
      }
    }
  }
}
