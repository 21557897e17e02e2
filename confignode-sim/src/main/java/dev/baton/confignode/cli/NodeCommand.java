package dev.baton.confignode.cli;

import dev.baton.confignode.faults.StateHolds;
import dev.baton.confignode.node.ConfigNodeServer;
import dev.baton.confignode.procedures.ConfigNodeProcedures;
import dev.baton.consensus.RaftSettings;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@code confignode-sim node --id ID --peers ID=HOST:PORT,... --data-dir DIR --http-port PORT
 * [--datanodes HOST:PORT,...] [--election-timeout-ms MIN,MAX] [--request-timeout-ms MS] [--faults]
 * [--hold TYPE:STATE,...]}: runs one ConfigNode until the process is stopped. Once serving it
 * prints {@code node ID http 127.0.0.1:PORT}, so a launcher that passed port 0 can read the port.
 */
final class NodeCommand {
  static final String NAME = "node";
  static final int EXIT_START_FAILED = 1;
  static final int MAX_PORT = 65_535;
  static final String ELECTION_TIMEOUT = "election-timeout-ms";
  static final String REQUEST_TIMEOUT = "request-timeout-ms";

  static final List<CommandLineFlags.Flag> FLAGS =
      List.of(
          new CommandLineFlags.Flag("id", "ID", "this node's id, one of --peers", true),
          new CommandLineFlags.Flag(
              "peers", "ID=HOST:PORT,...", "every ConfigNode's Raft address", true),
          new CommandLineFlags.Flag("data-dir", "DIR", "directory of this node's state", true),
          new CommandLineFlags.Flag(
              "http-port", "PORT", "admin API port on 127.0.0.1; 0 picks a free one", true),
          new CommandLineFlags.Flag(
              "datanodes", "HOST:PORT,...", "DataNodes to register at start", false),
          new CommandLineFlags.Flag(
              "snapshot-every",
              "N",
              "take a snapshot every N log entries (default "
                  + RaftSettings.DEFAULT_SNAPSHOT_EVERY
                  + ")",
              false),
          new CommandLineFlags.Flag(
              "log-segment-bytes",
              "N",
              "roll the Raft log to a new segment at N bytes; the log is purged behind a snapshot"
                  + " by whole segments (default "
                  + RaftSettings.DEFAULT_LOG_SEGMENT_BYTES
                  + ")",
              false),
          new CommandLineFlags.Flag(
              ELECTION_TIMEOUT,
              "MIN,MAX",
              "Raft election timeout range in ms, MIN > 0, MAX > MIN: a leader silent for a random"
                  + " time in it is replaced, so failover takes about 1-2x MIN; too low and a busy"
                  + " machine elects spurious leaders (default "
                  + RaftSettings.DEFAULT_ELECTION_TIMEOUT_MIN.toMillis()
                  + ","
                  + RaftSettings.DEFAULT_ELECTION_TIMEOUT_MAX.toMillis()
                  + ")",
              false),
          new CommandLineFlags.Flag(
              REQUEST_TIMEOUT,
              "MS",
              "how long a submission or read may wait for a leader and a majority (default "
                  + RaftSettings.DEFAULT_REQUEST_TIMEOUT.toMillis()
                  + ")",
              false),
          CommandLineFlags.Flag.toggle(
              "faults",
              "enable the fault routes (/api/faults/hold: hold procedures at a named state);"
                  + " for drills only"),
          new CommandLineFlags.Flag(
              "hold",
              "TYPE:STATE,...",
              "start with these fault holds set (implies --faults); for drills only",
              false));

  /** Smallest log segment allowed: a few entries must fit. */
  static final int MIN_LOG_SEGMENT_BYTES = 16 * 1024;

  private NodeCommand() {}

  static int run(String[] args, PrintStream out, PrintStream err) {
    if (CommandLineFlags.wantsHelp(args)) {
      out.println(usage());
      return 0;
    }
    ConfigNodeServer.Config config;
    try {
      config = parse(args);
    } catch (UsageException e) {
      err.println(NAME + ": " + e.getMessage());
      err.println(usage());
      return ConfigNodeCli.EXIT_USAGE;
    }
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
      err.println(NAME + ": could not start: " + e.getMessage());
      return EXIT_START_FAILED;
    }
    out.println("node " + config.nodeId() + " http 127.0.0.1:" + server.httpPort());
    out.flush();
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }

  static ConfigNodeServer.Config parse(String[] args) throws UsageException {
    CommandLineFlags flags = CommandLineFlags.parse(NAME, FLAGS, args);
    String id = flags.string("id");
    Map<String, InetSocketAddress> peers = new LinkedHashMap<>();
    for (String part : flags.string("peers").split(",")) {
      int eq = part.indexOf('=');
      if (eq <= 0) {
        throw new UsageException("--peers entries must be ID=HOST:PORT, got '" + part + "'");
      }
      peers.put(part.substring(0, eq), address(part.substring(eq + 1), "--peers"));
    }
    if (!peers.containsKey(id)) {
      throw new UsageException("--id " + id + " is not one of --peers " + peers.keySet());
    }
    List<String> dataNodes = new ArrayList<>();
    String dn = flags.string("datanodes");
    if (dn != null && !dn.isBlank()) {
      for (String a : dn.split(",")) {
        InetSocketAddress addr = address(a, "--datanodes");
        dataNodes.add(addr.getHostString() + ":" + addr.getPort());
      }
    }
    return new ConfigNodeServer.Config(
        id,
        peers,
        Path.of(flags.string("data-dir")),
        flags.intValue("http-port", 0, MAX_PORT),
        dataNodes,
        raftSettings(flags),
        flags.has("faults") || flags.has("hold"),
        holds(flags.string("hold")));
  }

  /** The holds of {@code --hold}, each checked against the procedure types and their states. */
  private static List<StateHolds.Hold> holds(String flag) throws UsageException {
    if (flag == null) {
      return List.of();
    }
    StateHolds check = StateHolds.enabled(ConfigNodeProcedures.stateNames());
    List<StateHolds.Hold> out = new ArrayList<>();
    for (String part : flag.split(",")) {
      try {
        StateHolds.Hold h = StateHolds.Hold.parse(part);
        check.hold(h.type(), h.state());
        out.add(h);
      } catch (IllegalArgumentException e) {
        throw new UsageException("--hold: " + e.getMessage());
      }
    }
    return out;
  }

  private static RaftSettings raftSettings(CommandLineFlags flags) throws UsageException {
    RaftSettings raft = RaftSettings.defaults();
    if (flags.string("snapshot-every") != null) {
      raft = raft.withSnapshotEvery(flags.intValue("snapshot-every", 1, Integer.MAX_VALUE));
    }
    if (flags.string("log-segment-bytes") != null) {
      raft =
          new RaftSettings(
              raft.electionTimeoutMin(),
              raft.electionTimeoutMax(),
              raft.requestTimeout(),
              raft.snapshotEvery(),
              flags.intValue("log-segment-bytes", MIN_LOG_SEGMENT_BYTES, Integer.MAX_VALUE));
    }
    String election = flags.string(ELECTION_TIMEOUT);
    if (election != null) {
      raft = electionTimeouts(raft, election);
    }
    if (flags.string(REQUEST_TIMEOUT) != null) {
      raft =
          raft.withRequestTimeout(
              Duration.ofMillis(flags.intValue(REQUEST_TIMEOUT, 1, Integer.MAX_VALUE)));
    }
    return raft;
  }

  /** {@code raft} with the election timeouts of {@code --election-timeout-ms MIN,MAX}. */
  private static RaftSettings electionTimeouts(RaftSettings raft, String flag)
      throws UsageException {
    String[] parts = flag.split(",", -1);
    long min;
    long max;
    try {
      if (parts.length != 2) {
        throw new NumberFormatException();
      }
      min = Integer.parseInt(parts[0].strip());
      max = Integer.parseInt(parts[1].strip());
    } catch (NumberFormatException e) {
      throw new UsageException(
          "flag --" + ELECTION_TIMEOUT + " must be MIN,MAX in milliseconds, got '" + flag + "'");
    }
    if (min <= 0 || max <= min) {
      throw new UsageException(
          "flag --"
              + ELECTION_TIMEOUT
              + " needs 0 < MIN < MAX, got MIN "
              + min
              + " and MAX "
              + max);
    }
    return raft.withElectionTimeouts(Duration.ofMillis(min), Duration.ofMillis(max));
  }

  static InetSocketAddress address(String s, String flag) throws UsageException {
    int colon = s.lastIndexOf(':');
    if (colon <= 0) {
      throw new UsageException(flag + " address must be HOST:PORT, got '" + s + "'");
    }
    try {
      int port = Integer.parseInt(s.substring(colon + 1));
      if (port < 1 || port > MAX_PORT) {
        throw new NumberFormatException();
      }
      return InetSocketAddress.createUnresolved(s.substring(0, colon), port);
    } catch (NumberFormatException e) {
      throw new UsageException(flag + " port must be 1.." + MAX_PORT + " in '" + s + "'");
    }
  }

  static String usage() {
    return "usage: confignode-sim "
        + NAME
        + " --id ID --peers ID=HOST:PORT,... --data-dir DIR --http-port PORT"
        + " [--datanodes HOST:PORT,...] [--snapshot-every N] [--log-segment-bytes N]"
        + " [--election-timeout-ms MIN,MAX] [--request-timeout-ms MS]"
        + " [--faults] [--hold TYPE:STATE,...]"
        + System.lineSeparator()
        + CommandLineFlags.describe(FLAGS);
  }
}
