package dev.baton.confignode.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.node.ConfigNodeServer;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.confignode.testing.SimClusterExtension;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code get ID --watch}: a line per change of state or step until the procedure finished, exit 0
 * on success and 6 otherwise, 5 when {@code --timeout} ran out, 1 for an unknown id; a watch whose
 * node is stopped resumes on the next node and still sees the end.
 */
@Timeout(180)
class GetWatchTest {
  /** A sleep that outlives the test: it ends only by abort. */
  private static final String LONG_SLEEP = "millis=600000";

  /** A sleep long enough for the watch to begin before it ends. */
  private static final String SHORT_SLEEP = "millis=1500";

  private static final String WATCH_TIMEOUT = "60";

  @RegisterExtension static final SimClusterExtension CLUSTER = new SimClusterExtension(3, 0);

  /** The nodes' admin APIs, {@code first} first. */
  private static String clusterFlag(ConfigNodeServer first) {
    List<String> addresses = new ArrayList<>();
    addresses.add(SimCluster.http(first));
    CLUSTER.cluster().nodes().stream()
        .filter(n -> n != first)
        .forEach(n -> addresses.add(SimCluster.http(n)));
    return String.join(",", addresses);
  }

  private static CliRun run(String... args) {
    List<String> line = new ArrayList<>(List.of(args));
    line.add("--cluster");
    line.add(clusterFlag(CLUSTER.cluster().follower()));
    return CliRun.main(line.toArray(String[]::new));
  }

  private static long submitSleep(String args) {
    CliRun r = run("submit", "--type", "Sleep", "--args", args);
    assertEquals(0, r.code(), r::toString);
    return Long.parseLong(r.out().trim());
  }

  /** A command running on a thread of its own, its output readable while it runs. */
  private static final class Background {
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();
    final CompletableFuture<Integer> code;

    Background(String... args) {
      PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
      PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
      code = CompletableFuture.supplyAsync(() -> ConfigNodeCli.run(args, o, e));
    }

    List<String> lines() {
      return out.toString(StandardCharsets.UTF_8).lines().toList();
    }

    CliRun finish() throws Exception {
      int c = code.get(SimCluster.WAIT.toSeconds(), TimeUnit.SECONDS);
      return new CliRun(
          c, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
  }

  private static List<JsonNode> changes(CliRun r) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (String line : r.out().lines().toList()) {
      out.add(Json.LENIENT.readTree(line));
    }
    return out;
  }

  @Test
  void watchPrintsEachChangeUntilTheProcedureSucceeds() throws Exception {
    long id = submitSleep(SHORT_SLEEP);
    CliRun r = run("get", Long.toString(id), "--watch", "--timeout", WATCH_TIMEOUT);
    assertEquals(0, r.code(), r::toString);
    List<JsonNode> changes = changes(r);
    assertTrue(changes.size() >= 2, r::toString);
    assertFalse(changes.get(0).path("finished").asBoolean(), "first read while it slept: " + r);
    JsonNode last = changes.get(changes.size() - 1);
    assertEquals("SUCCESS", last.path("state").asText(), r::toString);
    assertTrue(last.path("finished").asBoolean(), r::toString);
    for (int i = 0; i < changes.size(); i++) {
      assertEquals(id, changes.get(i).path("procId").asLong(), r::toString);
      assertEquals("Sleep", changes.get(i).path("type").asText(), r::toString);
      if (i > 0) {
        JsonNode a = changes.get(i - 1);
        JsonNode b = changes.get(i);
        assertNotEquals(
            a.path("state").asText() + a.path("step").asText(),
            b.path("state").asText() + b.path("step").asText(),
            "a line per change, none repeated: " + r);
      }
    }
  }

  @Test
  void watchOfAnAbortedProcedureExitsNotSuccessAndTablePrintsWords() throws Exception {
    long id = submitSleep(LONG_SLEEP);
    String cluster = clusterFlag(CLUSTER.cluster().follower());
    Background watch =
        new Background(
            "get", Long.toString(id), "--watch", "--format", "table", "--cluster", cluster);
    SimCluster.waiting().until(() -> !watch.lines().isEmpty());
    assertTrue(watch.lines().get(0).startsWith(id + " Sleep "), watch.lines().toString());
    CliRun aborted = run("abort", Long.toString(id));
    assertEquals(0, aborted.code(), aborted::toString);
    CliRun r = watch.finish();
    assertEquals(ClientCommand.EXIT_NOT_SUCCESS, r.code(), r::toString);
    List<String> lines = r.out().lines().toList();
    String last = lines.get(lines.size() - 1);
    assertTrue(last.contains(" finished") && last.contains("aborted"), r::toString);
  }

  @Test
  void watchEndsWithTheTimeoutWhileTheProcedureRuns() throws Exception {
    long id = submitSleep(LONG_SLEEP);
    try {
      CliRun r = run("get", Long.toString(id), "--watch", "--timeout", "1");
      assertEquals(ClientCommand.EXIT_WAIT_TIMEOUT, r.code(), r::toString);
      assertTrue(r.err().contains("has not finished after 1 s"), r::toString);
      assertEquals(1, r.out().lines().count(), "its state as first read: " + r);
    } finally {
      assertEquals(0, run("abort", Long.toString(id)).code());
    }
  }

  @Test
  void watchOfAnUnknownIdIsRefused() {
    CliRun r = run("get", "999999", "--watch", "--timeout", WATCH_TIMEOUT);
    assertEquals(ClientCommand.EXIT_REFUSED, r.code(), r::toString);
    assertTrue(r.err().contains("404 not_found"), r::toString);
  }

  /** Stops a follower for good: the other tests need only the two left, still a majority. */
  @Test
  void aWatchWhoseNodeStopsResumesOnTheNextNode() throws Exception {
    ConfigNodeServer watched = CLUSTER.cluster().follower();
    long id = submitSleep(LONG_SLEEP);
    Background watch =
        new Background("get", Long.toString(id), "--watch", "--cluster", clusterFlag(watched));
    SimCluster.waiting().until(() -> !watch.lines().isEmpty());
    assertEquals(
        SimCluster.http(watched),
        Json.LENIENT.readTree(watch.lines().get(0)).path("node").asText(),
        watch.lines().toString());
    CLUSTER.cluster().stopNode(watched);
    assertEquals(0, run("abort", Long.toString(id)).code());
    CliRun r = watch.finish();
    assertEquals(ClientCommand.EXIT_NOT_SUCCESS, r.code(), r::toString);
    List<JsonNode> changes = changes(r);
    JsonNode last = changes.get(changes.size() - 1);
    assertTrue(last.path("finished").asBoolean(), r::toString);
    assertNotEquals(SimCluster.http(watched), last.path("node").asText(), r::toString);
  }
}
