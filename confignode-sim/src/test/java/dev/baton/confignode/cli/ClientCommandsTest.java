package dev.baton.confignode.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.confignode.testing.SimClusterExtension;
import dev.baton.consensus.spi.LoopbackPorts;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The client commands of the jar against a 3-node ConfigNode cluster: {@code submit}, {@code get},
 * {@code list}, {@code abort}, {@code resume}; their help, usage errors (exit 2, nothing sent), the
 * cluster's errors (exit 1, its code and message, no stack trace) and an unreachable cluster (exit
 * 4).
 */
@Timeout(180)
class ClientCommandsTest {
  /** A sleep that outlives the test: it ends only by abort. */
  private static final String LONG_SLEEP = "millis=600000";

  @RegisterExtension static final SimClusterExtension CLUSTER = new SimClusterExtension(3, 0);

  /** Every node's admin API, a dead address first: the commands must try the next one. */
  private static String clusterFlag() throws IOException {
    List<String> addresses = new ArrayList<>();
    addresses.add("127.0.0.1:" + LoopbackPorts.free());
    CLUSTER.cluster().nodes().forEach(n -> addresses.add(SimCluster.http(n)));
    return String.join(",", addresses);
  }

  private static CliRun run(String... args) throws IOException {
    List<String> line = new ArrayList<>(List.of(args));
    line.add("--cluster");
    line.add(clusterFlag());
    return CliRun.main(line.toArray(String[]::new));
  }

  private static JsonNode json(String text) throws IOException {
    return Json.LENIENT.readTree(text);
  }

  private static void assertNoStackTrace(CliRun r) {
    assertFalse(r.err().contains("Exception"), r::toString);
    assertFalse(r.err().contains("\tat "), r::toString);
  }

  /** A Noop of K steps runs FIRST, SECOND (K-2 times), THIRD; one step runs FIRST only. */
  @ParameterizedTest
  @CsvSource({"1, FIRST", "5, THIRD"})
  void submitWithWaitPrintsTheIdThenTheFinalView(int steps, String lastStep) throws Exception {
    CliRun r = run("submit", "--type", "Noop", "--args", "steps=" + steps, "--wait", "60");
    assertEquals(0, r.code(), r::toString);
    String[] lines = r.out().split("\\R", 2);
    long id = Long.parseLong(lines[0].trim());
    JsonNode view = json(lines[1]);
    assertEquals(id, view.path("procId").asLong(), r::toString);
    assertEquals("SUCCESS", view.path("state").asText(), r::toString);
    assertTrue(view.path("finished").asBoolean(), r::toString);
    assertEquals(lastStep, view.path("step").asText(), r::toString);
  }

  @Test
  void submitGetListAndAbortALongSleep() throws Exception {
    CliRun submitted = run("submit", "--type", "Sleep", "--args", LONG_SLEEP, "--nonce", "77:1");
    assertEquals(0, submitted.code(), submitted::toString);
    long id = Long.parseLong(submitted.out().trim());
    CliRun again =
        run("submit", "--type", "Sleep", "--args-json", "{\"millis\":600000}", "--nonce", "77:1");
    assertEquals(id, Long.parseLong(again.out().trim()), "same nonce, same procedure");

    CliRun got = run("get", Long.toString(id));
    assertEquals(0, got.code(), got::toString);
    assertEquals("Sleep", json(got.out()).path("type").asText(), got::toString);
    CliRun table = run("get", Long.toString(id), "--format", "table");
    assertEquals(0, table.code(), table::toString);
    List<String> rows = table.out().lines().toList();
    assertEquals(2, rows.size(), table::toString);
    assertTrue(rows.get(0).startsWith("ID"), table::toString);
    assertTrue(rows.get(1).startsWith(id + " ") && rows.get(1).contains("Sleep"), table::toString);

    CliRun listed = run("list", "--type", "Sleep", "--state", "WAITING_TIMEOUT");
    assertEquals(0, listed.code(), listed::toString);
    List<Long> ids = new ArrayList<>();
    json(listed.out()).forEach(p -> ids.add(p.path("procId").asLong()));
    assertTrue(ids.contains(id), listed::toString);
    CliRun none = run("list", "--type", "NoSuchType");
    assertEquals("[ ]", none.out().trim(), none::toString);

    CliRun aborted = run("abort", Long.toString(id));
    assertEquals(0, aborted.code(), aborted::toString);
    assertTrue(json(aborted.out()).path("aborted").asBoolean(), aborted::toString);
    CliRun waited = run("submit", "--type", "Noop", "--wait", "60", "--format", "table");
    assertEquals(0, waited.code(), waited::toString);
    assertTrue(waited.out().contains("SUCCESS"), waited::toString);
  }

  @Test
  void aProcedureThatFailsMakesSubmitWaitExit6() throws Exception {
    CliRun r = run("submit", "--type", "RemoveDataNode", "--args", "dataNodeId=99", "--wait", "60");
    assertEquals(ClientCommand.EXIT_NOT_SUCCESS, r.code(), r::toString);
    JsonNode view = json(r.out().split("\\R", 2)[1]);
    assertEquals("ROLLEDBACK", view.path("state").asText(), r::toString);
    assertTrue(view.path("failure").asText().contains("no DataNode 99"), r::toString);
  }

  @Test
  void submitWaitRunningOutExits5() throws Exception {
    CliRun r = run("submit", "--type", "Sleep", "--args", LONG_SLEEP, "--wait", "0");
    assertEquals(ClientCommand.EXIT_WAIT_TIMEOUT, r.code(), r::toString);
    assertTrue(r.err().contains("has not finished after 0 s"), r::toString);
    run("abort", r.out().trim());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          unknown id      | get 999999                        | 404 not_found: no procedure 999999
          abort unknown   | abort 999999                      | 404 not_found: no procedure 999999
          unknown type    | submit --type Nope                | 400 invalid_request: unknown procedure type 'Nope'
          bad argument    | submit --type Sleep --args millis=x | argument 'millis' must be an integer
          too many steps  | submit --type Noop --args steps=10001 | steps must be within 1..10000
          no workflows    | resume --flow 5 --node load --reason x | 404 not_found
          """)
  void theClustersErrorsArePrintedWithTheirCodeAndExit1(String name, String line, String want)
      throws Exception {
    CliRun r = run(line.split(" "));
    assertEquals(ClientCommand.EXIT_REFUSED, r.code(), r::toString);
    assertTrue(r.err().contains("the cluster refused the request"), r::toString);
    assertTrue(r.err().contains(want), r::toString);
    assertEquals("", r.out(), r::toString);
    assertNoStackTrace(r);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          unknown flag    | get 1 --speed 5 --cluster 127.0.0.1:1           | unknown flag '--speed'
          no cluster      | get 1                                           | missing required flag --cluster
          bad address     | get 1 --cluster localhost                       | --cluster address must be HOST:PORT
          bad port        | list --cluster 127.0.0.1:70000                  | --cluster port must be 1..65535
          missing id      | get --cluster 127.0.0.1:1                       | missing argument ID
          id not a number | abort seven --cluster 127.0.0.1:1               | ID must be a positive integer, got 'seven'
          extra argument  | get 1 2 --cluster 127.0.0.1:1                   | unexpected argument '2'
          bad state       | list --state DONE --cluster 127.0.0.1:1         | unknown state 'DONE'
          bad format      | list --format yaml --cluster 127.0.0.1:1        | --format must be json or table
          no type         | submit --cluster 127.0.0.1:1                    | missing required flag --type T
          both args       | submit --type Noop --args a=1 --args-json {} --cluster 127.0.0.1:1 | --args or --args-json, not both
          args not pairs  | submit --type Noop --args a --cluster 127.0.0.1:1 | --args entries must be key=value
          args-json array | submit --type Noop --args-json [1] --cluster 127.0.0.1:1 | --args-json must be a JSON object
          bad nonce       | submit --type Noop --nonce 7 --cluster 127.0.0.1:1 | --nonce must be GROUP:NONCE
          bad wait        | submit --type Noop --wait -1 --cluster 127.0.0.1:1 | flag --wait must be an integer
          bad timeout     | list --timeout 0 --cluster 127.0.0.1:1          | flag --timeout must be an integer
          no flow         | resume --node a --reason x --cluster 127.0.0.1:1 | missing required flag --flow ID
          no reason       | resume --flow 1 --node a --cluster 127.0.0.1:1  | missing required flag --reason R
          bad action      | resume --flow 1 --node a --reason x --action skip --cluster 127.0.0.1:1 | --action must be one of [rerun, succeed, fail]
          """)
  void badFlagsExit2WithTheUsageAndSendNothing(String name, String line, String want) {
    CliRun r = CliRun.main(line.split(" "));
    assertEquals(ConfigNodeCli.EXIT_USAGE, r.code(), r::toString);
    assertTrue(r.err().contains(want), r::toString);
    assertTrue(r.err().contains("usage: confignode-sim " + line.split(" ")[0]), r::toString);
    assertEquals("", r.out(), r::toString);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "submit --type Noop",
        "get 1",
        "list",
        "abort 1",
        "resume --flow 1 --node a --reason x"
      })
  void noReachableNodeIsAClearMessageAndExit4(String line) throws Exception {
    String dead =
        List.of(LoopbackPorts.free(), LoopbackPorts.free()).stream()
            .map(p -> "127.0.0.1:" + p)
            .collect(Collectors.joining(","));
    List<String> args = new ArrayList<>(List.of(line.split(" ")));
    args.addAll(List.of("--cluster", dead, "--timeout", "1"));
    CliRun r = CliRun.main(args.toArray(String[]::new));
    assertEquals(ClientCommand.EXIT_NO_NODE, r.code(), r::toString);
    assertTrue(r.err().contains("no ConfigNode could serve"), r::toString);
    assertTrue(r.err().contains("connection refused"), r::toString);
    assertTrue(r.err().contains(dead.replace(",", ", ")), "names the nodes tried: " + r);
    assertEquals("", r.out(), r::toString);
    assertNoStackTrace(r);
  }

  @ParameterizedTest
  @ValueSource(strings = {"submit", "get", "list", "abort", "resume"})
  void helpDescribesEveryFlagAndExits0(String command) {
    CliRun r = CliRun.main(command, "--help");
    assertEquals(0, r.code(), r::toString);
    assertTrue(r.out().startsWith("usage: confignode-sim " + command), r::toString);
    assertTrue(r.out().contains("--cluster=HOST:PORT,..."), r::toString);
    assertTrue(r.out().contains("--timeout=SECONDS"), r::toString);
  }
}
