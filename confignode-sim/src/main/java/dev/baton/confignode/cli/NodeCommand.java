package dev.baton.confignode.cli;

import dev.baton.confignode.admin.AdminApiSettings;
import dev.baton.confignode.auth.TokenFile;
import dev.baton.confignode.faults.StateHolds;
import dev.baton.confignode.http.AllowedHosts;
import dev.baton.confignode.http.HttpLimits;
import dev.baton.confignode.http.TlsIdentity;
import dev.baton.confignode.node.ConfigNodeServer;
import dev.baton.confignode.node.RaftAccess;
import dev.baton.confignode.procedures.ConfigNodeProcedures;
import dev.baton.confignode.procedures.Noop;
import dev.baton.confignode.procedures.ProcedureLimits;
import dev.baton.consensus.ProcedureNode;
import dev.baton.consensus.RaftSettings;
import dev.baton.consensus.tls.TlsSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code confignode-sim node --id ID --peers ID=HOST:PORT,... --data-dir DIR --http-port PORT
 * [...]}: runs one ConfigNode until the process is stopped. Once serving it prints {@code node ID
 * http HOST:PORT} ({@code https} with a certificate), so a launcher that passed port 0 can read the
 * port.
 */
@Command(
    name = "node",
    description = {
      "Runs one ConfigNode until the process is stopped.",
      "Once serving it prints 'node ID http HOST:PORT' (https with --http-cert), so a launcher"
          + " that passed --http-port 0 can read the port."
    },
    exitCodeList = {
      "0:stopped, or removed from the cluster (it says so)",
      "1:could not start",
      "2:bad flags"
    })
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
      description = "admin API port; 0 picks a free one")
  Integer httpPort;

  @Option(
      names = "--http-bind",
      paramLabel = "HOST",
      description =
          "address the admin API listens on (0.0.0.0: every interface); any but a loopback"
              + " address needs --tokens")
  String httpBind = AdminApiSettings.DEFAULT_BIND;

  @Option(
      names = "--http-host",
      paramLabel = "NAME",
      description =
          "a name clients use for this node (Host header), besides the bind address and, on"
              + " loopback or every interface, 127.0.0.1, localhost and [::1]; repeatable")
  List<String> httpHosts = new ArrayList<>();

  @Option(
      names = "--http-cert",
      paramLabel = "PEM",
      description = "serve HTTPS with this certificate chain (PEM, the node's certificate first)")
  Path httpCert;

  @Option(
      names = "--http-key",
      paramLabel = "PEM",
      description = "the private key of --http-cert (PEM, PKCS#8: -----BEGIN PRIVATE KEY-----)")
  Path httpKey;

  @Option(
      names = "--tokens",
      paramLabel = "FILE",
      description =
          "token file: one 'ROLE NAME TOKEN' line per principal (roles reader, operator, admin);"
              + " readable by its owner only. Without it the admin API serves anyone, on"
              + " loopback only")
  Path tokens;

  @Option(
      names = "--audit-log",
      paramLabel = "FILE",
      description =
          "audit log of operator actions and refused requests (default DATA_DIR/"
              + AdminApiSettings.AUDIT_LOG
              + ")")
  Path auditLog;

  @Option(
      names = "--cluster-id",
      paramLabel = "ID",
      description =
          "the cluster's name; the Raft group derives from it, so nodes of another cluster cannot"
              + " join (default: ${DEFAULT-VALUE})")
  String clusterId = ProcedureNode.DEFAULT_CLUSTER_ID;

  @Option(
      names = "--bind",
      paramLabel = "HOST",
      description =
          "the address the Raft port listens on (default: the host of this node's --peers"
              + " entry); a non-loopback address needs --tls-* or --insecure")
  String bind;

  @Mixin TlsFlags tls;

  @Option(
      names = "--join",
      description =
          "join a running cluster as a new member: start with an empty Raft group and wait to be"
              + " added (add-confignode); --peers lists the current members and this node")
  boolean join;

  @Bounds(min = 0, max = Long.MAX_VALUE)
  @Option(
      names = "--max-live-procedures",
      paramLabel = "N",
      description =
          "unfinished procedures the cluster may hold while this node leads; 0: no cap"
              + " (default: ${DEFAULT-VALUE})")
  long maxLiveProcedures = ProcedureLimits.DEFAULTS.maxLiveProcedures();

  @Bounds(min = 1, max = Noop.MAX_STEPS)
  @Option(
      names = "--max-noop-steps",
      paramLabel = "N",
      description = "the most steps one Noop may ask for (default: ${DEFAULT-VALUE})")
  int maxNoopSteps = ProcedureLimits.DEFAULTS.maxNoopSteps();

  @Bounds(min = 0, max = Long.MAX_VALUE)
  @Option(
      names = "--max-sleep-ms",
      paramLabel = "MS",
      description = "the longest one Sleep may ask for (default: ${DEFAULT-VALUE})")
  long maxSleepMillis = ProcedureLimits.DEFAULTS.maxSleepMillis();

  @Option(
      names = "--break-deadlocks",
      arity = "1",
      paramLabel = "true|false",
      description =
          "fail the youngest procedure of a wait-for cycle (a deadlock) with a failure naming the"
              + " cycle; false: only log, count and list it (default: ${DEFAULT-VALUE})")
  boolean breakDeadlocks = ConfigNodeServer.Config.DEFAULT_BREAK_DEADLOCKS;

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
    ConfigNodeServer server;
    try {
      server = new ConfigNodeServer(config);
    } catch (IllegalArgumentException | IllegalStateException e) {
      // the settings do not fit together (e.g. a certificate naming another node)
      err().println(spec.name() + ": could not start: " + e.getMessage());
      return EXIT_START_FAILED;
    }
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
    out()
        .println(
            "node "
                + config.nodeId()
                + " "
                + server.httpScheme()
                + " "
                + config.api().advertisedHost()
                + ":"
                + server.httpPort());
    out().flush();
    server
        .removed()
        .thenAccept(
            reason -> {
              out().println("node " + config.nodeId() + " stops: " + reason);
              out().flush();
              stopped.countDown();
            });
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
        holds(),
        new ProcedureLimits(maxLiveProcedures, maxNoopSteps, maxSleepMillis),
        api(),
        raftAccess(),
        breakDeadlocks);
  }

  /**
   * How the Raft peer is reached and secured: the TLS files go together, and a non-loopback bind
   * needs TLS or {@code --insecure}.
   */
  private RaftAccess raftAccess() {
    Optional<TlsSettings> settings;
    try {
      settings = tls.settings();
    } catch (IllegalArgumentException e) {
      throw usageError(e.getMessage());
    }
    String host = bind != null ? bind : peers.byId().get(id).getHostString();
    if (settings.isEmpty() && !tls.insecure && !AllowedHosts.isLoopback(host)) {
      throw usageError(
          "the Raft port would listen on "
              + host
              + " without TLS: give --tls-cert, --tls-key and --tls-ca, or --insecure to accept"
              + " unauthenticated peers");
    }
    try {
      return new RaftAccess(clusterId, Optional.ofNullable(bind), settings, tls.insecure, join);
    } catch (IllegalArgumentException e) {
      throw usageError(e.getMessage());
    }
  }

  /**
   * How the admin API is reached and guarded: a token file open to others, a certificate without
   * its key, or a non-loopback bind without tokens is a usage error.
   */
  private AdminApiSettings api() {
    Optional<TokenFile> tokenFile = Optional.empty();
    if (tokens != null) {
      try {
        tokenFile = Optional.of(TokenFile.read(tokens));
      } catch (IOException e) {
        throw usageError("--tokens: " + e.getMessage());
      }
    }
    Optional<TlsIdentity> tls = Optional.empty();
    if ((httpCert == null) != (httpKey == null)) {
      throw usageError("--http-cert and --http-key go together: give both for HTTPS, or neither");
    }
    if (httpCert != null) {
      try {
        tls = Optional.of(TlsIdentity.fromPem(httpCert, httpKey));
      } catch (IOException e) {
        throw usageError("--http-cert/--http-key: " + e.getMessage());
      }
    }
    try {
      return new AdminApiSettings(
          httpBind, httpHosts, tls, tokenFile, Optional.ofNullable(auditLog), HttpLimits.ADMIN);
    } catch (IllegalArgumentException e) {
      throw usageError("--http-bind " + httpBind + ": " + e.getMessage());
    }
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
