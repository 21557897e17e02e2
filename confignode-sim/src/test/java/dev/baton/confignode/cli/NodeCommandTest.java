package dev.baton.confignode.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.certs.CertificateFiles;
import dev.baton.confignode.certs.ClusterCertificates;
import dev.baton.confignode.certs.ClusterFiles;
import dev.baton.confignode.node.ConfigNodeServer;
import dev.baton.confignode.node.RaftAccess;
import dev.baton.confignode.procedures.ProcedureLimits;
import dev.baton.consensus.RaftSettings;
import dev.baton.consensus.spi.LoopbackPorts;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine.ParameterException;

/** The {@code node} command: flags, help, and a start that fails cleanly. */
@Timeout(60)
class NodeCommandTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      textBlock =
          """
          no flags            | node                                                                              | missing required flag --id
          missing peers       | node --id a --data-dir /tmp/x --http-port 0                                       | missing required flag --peers
          missing data dir    | node --id a --peers a=127.0.0.1:5000 --http-port 0                                | missing required flag --data-dir
          missing http port   | node --id a --peers a=127.0.0.1:5000 --data-dir /tmp/x                            | missing required flag --http-port
          id not a peer       | node --id z --peers a=127.0.0.1:5000 --data-dir /tmp/x --http-port 0              | --id z is not one of --peers [a]
          peer without id     | node --id a --peers 127.0.0.1:5000 --data-dir /tmp/x --http-port 0                | --peers entries must be ID=HOST:PORT, got '127.0.0.1:5000'
          peer without port   | node --id a --peers a=localhost --data-dir /tmp/x --http-port 0                   | --peers address must be HOST:PORT, got 'localhost'
          peer port too high  | node --id a --peers a=127.0.0.1:70000 --data-dir /tmp/x --http-port 0             | --peers port must be 1..65535
          peer port zero      | node --id a --peers a=127.0.0.1:0 --data-dir /tmp/x --http-port 0                 | --peers port must be 1..65535
          http port a word    | node --id a --peers a=127.0.0.1:5000 --data-dir /tmp/x --http-port http           | flag --http-port must be an integer in 0..65535, got 'http'
          http port negative  | node --id a --peers a=127.0.0.1:5000 --data-dir /tmp/x --http-port -1             | flag --http-port must be an integer in 0..65535, got '-1'
          bad datanode        | node --id a --peers a=127.0.0.1:5000 --data-dir /tmp/x --http-port 0 --datanodes dn1 | --datanodes address must be HOST:PORT, got 'dn1'
          bad datanode port   | node --id a --peers a=127.0.0.1:5000 --data-dir /tmp/x --http-port 0 --datanodes h:x | --datanodes port must be 1..65535
          unknown flag        | node --id a --peers a=127.0.0.1:5000 --data-dir /tmp/x --http-port 0 --colour red | unknown flag '--colour'
          flag without value  | node --id --peers a=127.0.0.1:5000 --data-dir /tmp/x --http-port 0               | flag --id ID needs a value
          repeated flag       | node --id a --id a --peers a=127.0.0.1:5000 --data-dir /tmp/x --http-port 0       | flag --id is given twice
          stray argument      | node --id a --peers a=127.0.0.1:5000 --data-dir /tmp/x --http-port 0 extra        | unexpected argument 'extra'
          empty value         | node --id= --peers a=127.0.0.1:5000 --data-dir /tmp/x --http-port 0               | needs a non-empty value
          switch with value   | node --id a --peers a=127.0.0.1:5000 --data-dir /tmp/x --http-port 0 --faults=yes | flag --faults takes no value, got 'yes'
          hold without state  | node --id a --peers a=127.0.0.1:5000 --data-dir /tmp/x --http-port 0 --hold Noop  | --hold: a hold is TYPE:STATE
          hold unknown state  | node --id a --peers a=127.0.0.1:5000 --data-dir /tmp/x --http-port 0 --hold Noop:X | --hold: procedure type Noop has no state 'X'
          election one value  | node --id a --peers a=127.0.0.1:5000 --data-dir /tmp/x --http-port 0 --election-timeout-ms 300       | flag --election-timeout-ms must be MIN,MAX in milliseconds, got '300'
          election three      | node --id a --peers a=127.0.0.1:5000 --data-dir /tmp/x --http-port 0 --election-timeout-ms 1,2,3     | flag --election-timeout-ms must be MIN,MAX in milliseconds, got '1,2,3'
          election words      | node --id a --peers a=127.0.0.1:5000 --data-dir /tmp/x --http-port 0 --election-timeout-ms a,b       | flag --election-timeout-ms must be MIN,MAX in milliseconds, got 'a,b'
          election no max     | node --id a --peers a=127.0.0.1:5000 --data-dir /tmp/x --http-port 0 --election-timeout-ms 300,     | flag --election-timeout-ms must be MIN,MAX in milliseconds, got '300,'
          election min zero   | node --id a --peers a=127.0.0.1:5000 --data-dir /tmp/x --http-port 0 --election-timeout-ms 0,300     | flag --election-timeout-ms needs 0 < MIN < MAX, got MIN 0 and MAX 300
          election min < 0    | node --id a --peers a=127.0.0.1:5000 --data-dir /tmp/x --http-port 0 --election-timeout-ms -5,300    | flag --election-timeout-ms needs 0 < MIN < MAX, got MIN -5 and MAX 300
          election max = min  | node --id a --peers a=127.0.0.1:5000 --data-dir /tmp/x --http-port 0 --election-timeout-ms 300,300   | flag --election-timeout-ms needs 0 < MIN < MAX, got MIN 300 and MAX 300
          election max < min  | node --id a --peers a=127.0.0.1:5000 --data-dir /tmp/x --http-port 0 --election-timeout-ms 600,300   | flag --election-timeout-ms needs 0 < MIN < MAX, got MIN 600 and MAX 300
          request timeout 0   | node --id a --peers a=127.0.0.1:5000 --data-dir /tmp/x --http-port 0 --request-timeout-ms 0          | flag --request-timeout-ms must be an integer in 1..2147483647, got '0'
          request timeout s   | node --id a --peers a=127.0.0.1:5000 --data-dir /tmp/x --http-port 0 --request-timeout-ms 10s        | flag --request-timeout-ms must be an integer in 1..2147483647, got '10s'
          deadlocks maybe     | node --id a --peers a=127.0.0.1:5000 --data-dir /tmp/x --http-port 0 --break-deadlocks maybe        | flag --break-deadlocks must be true or false, got 'maybe'
          """)
  void nodeUsageErrorsExitWith2AndSayWhatIsWrong(String name, String line, String expected) {
    CliRun r = CliRun.main(line.split(" "));
    assertEquals(ConfigNodeCli.EXIT_USAGE, r.code(), name);
    assertTrue(r.err().contains(expected), () -> name + ": " + r.err());
    assertTrue(r.err().contains("usage: confignode-sim node"), r.err());
    assertEquals("", r.out(), "errors go to stderr");
  }

  @ParameterizedTest
  @ValueSource(strings = {"--help", "-h"})
  void nodeHelpListsEveryFlagAndExitsWith0(String help) {
    CliRun r = CliRun.main("node", "--id", "a", help);
    assertEquals(0, r.code());
    for (String flag :
        List.of(
            "--id=ID",
            "--peers=ID=HOST:PORT,...",
            "--data-dir=DIR",
            "--http-port=PORT",
            "--datanodes=HOST:PORT,...",
            "--election-timeout-ms=MIN,MAX",
            "--request-timeout-ms=MS",
            "--faults",
            "--hold=TYPE:STATE,...")) {
      assertTrue(r.out().contains(flag), () -> flag + " in " + r.out());
    }
    assertEquals("", r.err());
  }

  @Test
  void faultFlagsTurnTheFaultRoutesOnWithHoldsSetAtStart() throws Exception {
    String[] base = {
      "--id", "a", "--peers", "a=127.0.0.1:5000", "--data-dir", "x", "--http-port", "0"
    };
    ConfigNodeServer.Config off = NodeCommand.parse(base);
    assertTrue(!off.faults() && off.holdsAtStart().isEmpty(), off::toString);
    ConfigNodeServer.Config on = NodeCommand.parse(concat(base, "--faults"));
    assertTrue(on.faults() && on.holdsAtStart().isEmpty(), on::toString);
    ConfigNodeServer.Config held =
        NodeCommand.parse(concat(base, "--hold", "RemoveDataNode:MIGRATE,Noop:FIRST"));
    assertTrue(held.faults(), "--hold implies --faults");
    assertEquals(
        List.of(
            new dev.baton.confignode.faults.StateHolds.Hold("RemoveDataNode", "MIGRATE"),
            new dev.baton.confignode.faults.StateHolds.Hold("Noop", "FIRST")),
        held.holdsAtStart());
  }

  /** {@code a} followed by {@code b}. */
  static String[] concat(String[] a, String... b) {
    String[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** The flags of a node that would start, plus {@code more}. */
  private String[] nodeArgs(String... more) {
    List<String> args =
        new java.util.ArrayList<>(
            List.of(
                "node",
                "--id",
                "a",
                "--peers",
                "a=127.0.0.1:5000",
                "--data-dir",
                dir.resolve("a").toString(),
                "--http-port",
                "0"));
    args.addAll(List.of(more));
    return args.toArray(new String[0]);
  }

  private Path tokenFile(String mode) throws Exception {
    Path file = dir.resolve("tokens-" + mode);
    java.nio.file.Files.writeString(file, "admin root " + "t".repeat(40) + "\n");
    java.nio.file.Files.setPosixFilePermissions(
        file, java.nio.file.attribute.PosixFilePermissions.fromString(mode));
    return file;
  }

  @Test
  void aTokenFileOthersCanReadRefusesToStartWithExit2() throws Exception {
    CliRun r = CliRun.main(nodeArgs("--tokens", tokenFile("rw-r--r--").toString()));
    assertEquals(ConfigNodeCli.EXIT_USAGE, r.code(), r.toString());
    assertTrue(r.err().contains("others on this host could read the tokens"), r.err());
    assertTrue(r.err().contains("chmod 600"), r.err());
    assertEquals("", r.out(), r.toString());
  }

  @Test
  void aNonLoopbackBindWithoutTokensRefusesToStartWithExit2() {
    CliRun r = CliRun.main(nodeArgs("--http-bind", "0.0.0.0"));
    assertEquals(ConfigNodeCli.EXIT_USAGE, r.code(), r.toString());
    assertTrue(r.err().contains("--http-bind 0.0.0.0"), r.err());
    assertTrue(r.err().contains("--tokens FILE"), r.err());
  }

  @Test
  void aCertificateWithoutItsKeyIsAUsageError() {
    CliRun r = CliRun.main(nodeArgs("--http-cert", dir.resolve("cert.pem").toString()));
    assertEquals(ConfigNodeCli.EXIT_USAGE, r.code(), r.toString());
    assertTrue(r.err().contains("--http-cert and --http-key go together"), r.err());
  }

  @Test
  void securityFlagsBecomeTheAdminApiSettings() throws Exception {
    Path tokens = tokenFile("rw-------");
    String[] all =
        nodeArgs(
            "--http-bind",
            "0.0.0.0",
            "--http-host",
            "cn1.example",
            "--tokens",
            tokens.toString(),
            "--audit-log",
            dir.resolve("audit.log").toString());
    ConfigNodeServer.Config c = NodeCommand.parse(Arrays.copyOfRange(all, 1, all.length));
    assertEquals("0.0.0.0", c.api().bindHost());
    assertEquals(List.of("cn1.example"), c.api().hostNames());
    assertEquals("root", c.api().tokens().orElseThrow().principals().get(0).name());
    assertEquals(dir.resolve("audit.log"), c.api().auditLogIn(dir));
    assertEquals("cn1.example", c.api().advertisedHost());
  }

  @Test
  void nodeFlagsBecomeTheServerConfig() throws Exception {
    ConfigNodeServer.Config c =
        NodeCommand.parse(
            new String[] {
              "--id",
              "b",
              "--peers",
              "a=127.0.0.1:5000,b=127.0.0.1:5001",
              "--data-dir",
              dir.toString(),
              "--http-port=8080",
              "--datanodes",
              "127.0.0.1:6000,localhost:6001"
            });
    assertEquals("b", c.nodeId());
    assertEquals(
        Map.of(
            "a", InetSocketAddress.createUnresolved("127.0.0.1", 5000),
            "b", InetSocketAddress.createUnresolved("127.0.0.1", 5001)),
        c.peers());
    assertEquals(dir, c.dataDir());
    assertEquals(8080, c.httpPort());
    assertEquals(List.of("127.0.0.1:6000", "localhost:6001"), c.dataNodes());
  }

  @Test
  void raftAccessAndLimitFlagsReachTheConfiguration() throws Exception {
    String[] base = {
      "--id", "a", "--peers", "a=127.0.0.1:5000", "--data-dir", dir.toString(), "--http-port", "0"
    };
    ConfigNodeServer.Config defaults = NodeCommand.parse(base);
    assertEquals(RaftAccess.LOOPBACK, defaults.raftAccess());
    assertEquals(ProcedureLimits.DEFAULTS, defaults.limits());
    assertTrue(defaults.breakDeadlocks(), "deadlocks are broken by default");
    assertFalse(NodeCommand.parse(concat(base, "--break-deadlocks", "false")).breakDeadlocks());

    ClusterFiles certs =
        ClusterCertificates.write(
            Files.createDirectory(dir.resolve("certs")),
            List.of("a"),
            0,
            ClusterCertificates.LOOPBACK_HOSTS);
    CertificateFiles a = certs.member("a");
    ConfigNodeServer.Config secured =
        NodeCommand.parse(
            concat(
                base,
                "--cluster-id",
                "prod-1",
                "--tls-cert",
                a.cert().toString(),
                "--tls-key",
                a.key().toString(),
                "--tls-ca",
                a.ca().toString(),
                "--max-live-procedures",
                "500",
                "--max-noop-steps",
                "7",
                "--max-sleep-ms",
                "1000"));
    assertEquals("prod-1", secured.raftAccess().clusterId());
    assertTrue(secured.raftAccess().tls().isPresent());
    assertEquals(new ProcedureLimits(500, 7, 1000), secured.limits());

    ParameterException partial =
        org.junit.jupiter.api.Assertions.assertThrows(
            ParameterException.class,
            () -> NodeCommand.parse(concat(base, "--tls-cert", a.cert().toString())));
    assertTrue(partial.getMessage().contains("go together"), partial.getMessage());
  }

  @Test
  void aNonLoopbackRaftBindNeedsTlsOrInsecure() throws Exception {
    String[] base = {
      "--id", "a", "--peers", "a=192.0.2.10:5000", "--data-dir", dir.toString(), "--http-port", "0"
    };
    ParameterException refused =
        org.junit.jupiter.api.Assertions.assertThrows(
            ParameterException.class, () -> NodeCommand.parse(base));
    assertTrue(refused.getMessage().contains("without TLS"), refused.getMessage());
    assertTrue(refused.getMessage().contains("--insecure"), refused.getMessage());
    ConfigNodeServer.Config insecure = NodeCommand.parse(concat(base, "--insecure"));
    assertTrue(insecure.raftAccess().allowInsecure());
    ParameterException bound =
        org.junit.jupiter.api.Assertions.assertThrows(
            ParameterException.class,
            () ->
                NodeCommand.parse(
                    new String[] {
                      "--id",
                      "a",
                      "--peers",
                      "a=127.0.0.1:5000",
                      "--data-dir",
                      dir.toString(),
                      "--http-port",
                      "0",
                      "--bind",
                      "0.0.0.0"
                    }));
    assertTrue(bound.getMessage().contains("0.0.0.0"), bound.getMessage());
  }

  @Test
  void snapshotAndLogSegmentFlagsTuneRaft() throws Exception {
    String[] base = {
      "--id", "a", "--peers", "a=127.0.0.1:5000", "--data-dir", dir.toString(), "--http-port", "0"
    };
    ConfigNodeServer.Config defaults = NodeCommand.parse(base);
    assertEquals(RaftSettings.defaults(), defaults.raft());

    String[] tuned = Arrays.copyOf(base, base.length + 4);
    System.arraycopy(
        new String[] {"--snapshot-every", "100", "--log-segment-bytes", "65536"},
        0,
        tuned,
        base.length,
        4);
    ConfigNodeServer.Config c = NodeCommand.parse(tuned);
    assertEquals(100, c.raft().snapshotEvery());
    assertEquals(65536, c.raft().logSegmentBytes());

    String[] tooSmall = Arrays.copyOf(base, base.length + 2);
    tooSmall[base.length] = "--log-segment-bytes";
    tooSmall[base.length + 1] = "10";
    ParameterException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            ParameterException.class, () -> NodeCommand.parse(tooSmall));
    assertTrue(e.getMessage().contains("--log-segment-bytes"), e.getMessage());
  }

  @Test
  void electionAndRequestTimeoutFlagsTuneRaft() throws Exception {
    String[] base = {
      "--id", "a", "--peers", "a=127.0.0.1:5000", "--data-dir", dir.toString(), "--http-port", "0"
    };
    ConfigNodeServer.Config c =
        NodeCommand.parse(
            concat(base, "--election-timeout-ms", "1000,2500", "--request-timeout-ms=30000"));
    assertEquals(Duration.ofMillis(1000), c.raft().electionTimeoutMin());
    assertEquals(Duration.ofMillis(2500), c.raft().electionTimeoutMax());
    assertEquals(Duration.ofSeconds(30), c.raft().requestTimeout());
    assertEquals(RaftSettings.DEFAULT_SNAPSHOT_EVERY, c.raft().snapshotEvery(), "others kept");

    ConfigNodeServer.Config onlyElection =
        NodeCommand.parse(concat(base, "--election-timeout-ms", " 80 , 90 "));
    assertEquals(
        RaftSettings.defaults().withElectionTimeouts(Duration.ofMillis(80), Duration.ofMillis(90)),
        onlyElection.raft());
  }

  @Test
  void aNodeThatCannotStartExitsWith1() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      CliRun r =
          CliRun.main(
              "node",
              "--id",
              "a",
              "--peers",
              "a=127.0.0.1:" + LoopbackPorts.free(),
              "--data-dir",
              dir.toString(),
              "--http-port",
              Integer.toString(taken.getLocalPort()));
      assertEquals(NodeCommand.EXIT_START_FAILED, r.code(), r.err());
      assertTrue(r.err().contains("node: could not start"), r.err());
    }
  }
}
