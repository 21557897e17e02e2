package dev.baton.confignode.cli;

import dev.baton.confignode.faults.StateHolds;
import dev.baton.confignode.node.ConfigNodeServer;
import dev.baton.confignode.procedures.ConfigNodeProcedures;
import dev.baton.consensus.RaftSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code confignode-sim node --id ID --peers ID=HOST:PORT,... --data-dir DIR --http-port PORT
 * [...]}: runs one ConfigNode until the process is stopped. Once serving it prints {@code node ID
 * http 127.0.0.1:PORT}, so a launcher that passed port 0 can read the port.
 */
@Command(
    name = "node",
    description = {
      "Runs one ConfigNode until the process is stopped.",
      "Once serving it prints 'node ID http 127.0.0.1:PORT', so a launcher that passed"
          + " --http-port 0 can read the port."
    },
    exitCodeList = {"0:stopped", "1:could not start", "2:bad flags"})
final class NodeCommand extends CliCommand {
  static final int EXIT_START_FAILED = 1;

  /** Smallest log segment allowed: a few entries must fit. */
  static final int MIN_LOG_SEGMENT_BYTES = 16 * 1024;

  @Option(
      names = "--id",
      required = true,
      paramLabel = "ID",
      description = "this node's id, one of --peers")
  String id;

  @Option(
      names = "--peers",
      required = true,
      paramLabel = "ID=HOST:PORT,...",
      converter = Peers.Converter.class,
      description = "every ConfigNode's Raft address")
  Peers peers;

  @Option(
      names = "--data-dir",
      required = true,
      paramLabel = "DIR",
      description = "directory of this node's state")
  Path dataDir;

  @Bounds(min = 0, max = HostPorts.MAX_PORT)
  @Option(
      names = "--http-port",
      required = true,
      paramLabel = "PORT",
      description = "admin API port on 127.0.0.1; 0 picks a free one")
  Integer httpPort;

  @Option(
      names = "--datanodes",
      paramLabel = "HOST:PORT,...",
      converter = HostPorts.Converter.class,
      description = "DataNodes to register at start")
  HostPorts dataNodes;

  @Bounds(min = 1, max = Integer.MAX_VALUE)
  @Option(
      names = "--snapshot-every",
      paramLabel = "N",
      description = "take a snapshot every N log entries")
  long snapshotEvery = RaftSettings.DEFAULT_SNAPSHOT_EVERY;

  @Bounds(min = MIN_LOG_SEGMENT_BYTES, max = Integer.MAX_VALUE)
  @Option(
      names = "--log-segment-bytes",
      paramLabel = "N",
      description =
          "roll the Raft log to a new segment at N bytes (at least "
              + MIN_LOG_SEGMENT_BYTES
              + "); the log is purged behind a snapshot by whole segments")
  long logSegmentBytes = RaftSettings.DEFAULT_LOG_SEGMENT_BYTES;

  @Option(
      names = "--election-timeout-ms",
      paramLabel = "MIN,MAX",
      converter = ElectionTimeouts.Converter.class,
      description =
          "Raft election timeout range in ms, 0 < MIN < MAX: a leader silent for a random time in"
              + " it is replaced, so failover takes about 1-2x MIN; too low and a busy machine"
              + " elects spurious leaders")
  ElectionTimeouts electionTimeouts = ElectionTimeouts.DEFAULT;

  @Bounds(min = 1, max = Integer.MAX_VALUE)
  @Option(
      names = "--request-timeout-ms",
      paramLabel = "MS",
      description = "how long a submission or read may wait for a leader and a majority")
  long requestTimeoutMillis = RaftSettings.DEFAULT_REQUEST_TIMEOUT.toMillis();

  @Option(
      names = "--faults",
      arity = "0",
      description =
          "enable the fault routes (/api/faults/hold: hold procedures at a named state);"
              + " for drills only")
  boolean faults;

  @Option(
      names = "--hold",
      paramLabel = "TYPE:STATE,...",
      description = "start with these fault holds set (implies --faults); for drills only")
  String hold;

  @Override
  public Integer call() {
    ConfigNodeServer.Config config = config();
    ConfigNodeServer server = new ConfigNodeServer(config);
    CountDownLatch stopped = new CountDownLatch(1);
    Thread shutdown =
        new Thread(
            () -> {
              server.close();
              stopped.countDown();
            },
            "node-shutdown");
    Runtime.getRuntime().addShutdownHook(shutdown);
    try {
      server.start(); // closes what it started if it fails
    } catch (IOException | RuntimeException e) {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdown);
      } catch (IllegalStateException shuttingDown) {
        // the hook runs anyway; closing twice is harmless
      }
      err().println(spec.name() + ": could not start: " + e.getMessage());
      return EXIT_START_FAILED;
    }
    out().println("node " + config.nodeId() + " http 127.0.0.1:" + server.httpPort());
    out().flush();
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }

  /** The server's configuration from the flags; what they cannot say alone is checked here. */
  ConfigNodeServer.Config config() {
    if (!peers.byId().containsKey(id)) {
      throw usageError("--id " + id + " is not one of --peers " + peers.byId().keySet());
    }
    RaftSettings raft =
        new RaftSettings(
            Duration.ofMillis(electionTimeouts.minMillis()),
            Duration.ofMillis(electionTimeouts.maxMillis()),
            Duration.ofMillis(requestTimeoutMillis),
            snapshotEvery,
            logSegmentBytes);
    return new ConfigNodeServer.Config(
        id,
        peers.byId(),
        dataDir,
        httpPort,
        dataNodes == null ? List.of() : dataNodes.addresses(),
        raft,
        faults || hold != null,
        holds());
  }

  /** The holds of {@code --hold}, each checked against the procedure types and their states. */
  private List<StateHolds.Hold> holds() {
    if (hold == null) {
      return List.of();
    }
    StateHolds check = StateHolds.enabled(ConfigNodeProcedures.stateNames());
    List<StateHolds.Hold> out = new ArrayList<>();
    for (String part : hold.split(",")) {
      try {
        StateHolds.Hold h = StateHolds.Hold.parse(part);
        check.hold(h.type(), h.state());
        out.add(h);
      } catch (IllegalArgumentException e) {
        throw usageError("--hold: " + e.getMessage());
      }
    }
    return out;
  }

  /**
   * The configuration of {@code node ARGS} (the arguments after the command name), checked as the
   * command line checks it; a usage error is thrown with the message the command line prints.
   */
  static ConfigNodeServer.Config parse(String[] args) {
    CommandLine line = new CommandLine(new NodeCommand());
    try {
      UsageErrors.check(line.parseArgs(args));
    } catch (ParameterException e) {
      throw new ParameterException(line, UsageErrors.message(e, args), e, null, "");
    }
    return ((NodeCommand) line.getCommand()).config();
  }

  /**
   * {@code --election-timeout-ms MIN,MAX}.
   *
   * @param minMillis at least 1
   * @param maxMillis more than {@code minMillis}
   */
  record ElectionTimeouts(long minMillis, long maxMillis) {
    static final ElectionTimeouts DEFAULT =
        new ElectionTimeouts(
            RaftSettings.DEFAULT_ELECTION_TIMEOUT_MIN.toMillis(),
            RaftSettings.DEFAULT_ELECTION_TIMEOUT_MAX.toMillis());

    @Override
    public String toString() {
      return minMillis + "," + maxMillis;
    }

    /** Reads {@code MIN,MAX}, two integers with {@code 0 < MIN < MAX}. */
    static final class Converter implements ITypeConverter<ElectionTimeouts> {
      @Override
      public ElectionTimeouts convert(String value) {
        String[] parts = value.split(",", -1);
        long min;
        long max;
        try {
          if (parts.length != 2) {
            throw new NumberFormatException();
          }
          min = Integer.parseInt(parts[0].strip());
          max = Integer.parseInt(parts[1].strip());
        } catch (NumberFormatException e) {
          throw new TypeConversionException("must be MIN,MAX in milliseconds, got '" + value + "'");
        }
        if (min <= 0 || max <= min) {
          throw new TypeConversionException(
              "needs 0 < MIN < MAX, got MIN " + min + " and MAX " + max);
        }
        return new ElectionTimeouts(min, max);
      }
    }
  }
}
