package dev.baton.confignode.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.certs.CertificateFiles;
import dev.baton.confignode.certs.ClusterCertificates;
import dev.baton.confignode.datanode.CommandContext;
import dev.baton.confignode.datanode.DataNodeClient;
import dev.baton.confignode.datanode.DataNodeConfig;
import dev.baton.confignode.datanode.DataNodeGuard;
import dev.baton.confignode.datanode.DataNodeServer;
import dev.baton.consensus.tls.PeerIdentity;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine.ParameterException;

/** The {@code datanode} command: flags, help, and a run in-process. */
@Timeout(60)
class DataNodeCommandTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final Pattern LISTENING = Pattern.compile("listening on (\\S+:\\d+)");

  @TempDir Path dir;

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          no flags            | datanode                                                   | missing required flag --id
          missing data dir    | datanode --id 1 --port 0                                   | missing required flag --data-dir
          missing port        | datanode --id 1 --data-dir /tmp/x                          | missing required flag --port
          unknown flag        | datanode --id 1 --port 0 --data-dir /tmp/x --colour red    | unknown flag '--colour'
          flag without value  | datanode --id 1 --port --data-dir /tmp/x                   | flag --port PORT needs a value
          id not a number     | datanode --id one --port 0 --data-dir /tmp/x               | flag --id must be an integer
          negative id         | datanode --id -1 --port 0 --data-dir /tmp/x                | flag --id must be an integer
          port out of range   | datanode --id 1 --port 70000 --data-dir /tmp/x             | flag --port must be an integer in 0..65535
          repeated flag       | datanode --id 1 --id 2 --port 0 --data-dir /tmp/x          | flag --id is given twice
          stray argument      | datanode --id 1 --port 0 --data-dir /tmp/x extra           | unexpected argument 'extra'
          empty value         | datanode --id= --port 0 --data-dir /tmp/x                  | needs a non-empty value
          """)
  void usageErrorsExitWith2AndSayWhatIsWrong(String name, String line, String expected) {
    CliRun r = CliRun.main(line.split(" "));
    assertEquals(ConfigNodeCli.EXIT_USAGE, r.code(), name);
    assertTrue(r.err().contains(expected), name + ": " + r.err());
    assertTrue(r.err().contains("usage: confignode-sim datanode"), r.err());
  }

  @Test
  void helpPrintsEveryFlagAndExitsWith0() {
    CliRun r = CliRun.main("datanode", "--help");
    assertEquals(0, r.code());
    for (String flag : new String[] {"--id=ID", "--port=PORT", "--data-dir=DIR"}) {
      assertTrue(r.out().contains(flag), r.out());
    }
  }

  @Test
  void equalsFormIsAccepted() throws Exception {
    DataNodeConfig config =
        DataNodeCommand.parse(new String[] {"--id=7", "--port=0", "--data-dir=" + dir});
    assertEquals(7, config.id());
    assertEquals(0, config.port());
    assertEquals(dir, config.dataDir());
  }

  @Test
  void tlsFaultsAndANonLoopbackBindReachTheConfiguration() throws Exception {
    String[] base = {"--id", "1", "--port", "0", "--data-dir", dir.toString()};
    DataNodeConfig defaults = DataNodeCommand.parse(base);
    assertEquals(DataNodeGuard.PLAIN, defaults.guard());

    ClusterCertificates ca = ClusterCertificates.create("datanode-command-test");
    ca.writeCa(dir);
    CertificateFiles mine = ca.writeDataNode(dir, "1", ClusterCertificates.LOOPBACK_HOSTS);
    String[] tls = {
      "--tls-cert", mine.cert().toString(),
      "--tls-key", mine.key().toString(),
      "--tls-ca", mine.ca().toString()
    };
    DataNodeConfig secured =
        DataNodeCommand.parse(
            NodeCommandTest.concat(
                NodeCommandTest.concat(base, tls), "--bind", "0.0.0.0", "--faults"));
    assertTrue(secured.guard().tls().isPresent());
    assertEquals(PeerIdentity.dataNode("1"), secured.guard().tls().get().identity());
    assertTrue(secured.guard().faults());

    ParameterException partial =
        assertThrows(
            ParameterException.class,
            () ->
                DataNodeCommand.parse(
                    NodeCommandTest.concat(base, "--tls-cert", mine.cert().toString())));
    assertTrue(partial.getMessage().contains("go together"), partial.getMessage());

    ParameterException exposed =
        assertThrows(
            ParameterException.class,
            () -> DataNodeCommand.parse(NodeCommandTest.concat(base, "--bind", "0.0.0.0")));
    assertTrue(exposed.getMessage().contains("--insecure"), exposed.getMessage());
    assertTrue(
        DataNodeCommand.parse(NodeCommandTest.concat(base, "--bind", "0.0.0.0", "--insecure"))
            .guard()
            .allowInsecure());
  }

  @Test
  void servesUntilStoppedAndPrintsItsAddress() throws Exception {
    DataNodeConfig config =
        DataNodeCommand.parse(
            new String[] {
              "--id", "5", "--port", "0", "--data-dir", dir.toString(), "--bind", "localhost"
            });
    assertEquals("localhost", config.bindHost());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch stopped = new CountDownLatch(1);
    CompletableFuture<Integer> run =
        CompletableFuture.supplyAsync(
            () ->
                DataNodeCommand.serve(
                    config,
                    new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                    stop,
                    stopped));

    await()
        .atMost(WAIT)
        .until(() -> LISTENING.matcher(out.toString(StandardCharsets.UTF_8)).find());
    Matcher m = LISTENING.matcher(out.toString(StandardCharsets.UTF_8));
    assertTrue(m.find());
    assertEquals(
        5, new DataNodeClient(m.group(1)).ping(new CommandContext(1, 1, "PING")).dataNodeId());

    stop.countDown();
    assertEquals(0, run.get(WAIT.toSeconds(), TimeUnit.SECONDS));
    assertTrue(stopped.await(WAIT.toSeconds(), TimeUnit.SECONDS));
  }

  @Test
  void aDataDirectoryInUseFailsToStartWithExit1() throws Exception {
    try (DataNodeServer running = new DataNodeServer(DataNodeConfig.of(1, dir)).start()) {
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int code =
          DataNodeCommand.serve(
              DataNodeConfig.of(1, dir),
              new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
              new PrintStream(err, true, StandardCharsets.UTF_8),
              new CountDownLatch(0),
              new CountDownLatch(1));
      assertEquals(DataNodeCommand.EXIT_START_FAILED, code);
      assertTrue(err.toString(StandardCharsets.UTF_8).contains("in use"), err.toString());
    }
  }
}
