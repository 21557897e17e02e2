package dev.baton.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.cli.ConfigNodeCli;
import dev.baton.confignode.drill.Drill;
import dev.baton.confignode.hosts.NetnsHosts;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The drill itself, small: 3 ConfigNode and 3 DataNode processes, a workload of a few procedures, a
 * SIGKILL of the leader, and every invariant checked; afterwards its processes and its directory
 * are gone. Once on loopback, once from the command line on hosts in network namespaces ({@code
 * drill --hosts netns}), whose namespaces are gone afterwards too; and once cutting the leader off
 * instead of killing it ({@code drill --hosts netns --partition}).
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class DrillTest {
  private static final Pattern WORKING_IN = Pattern.compile("working in (\\S+)");

  /** How long listing the namespaces may take. */
  private static final long NAMESPACE_LIST_SECONDS = 10;

  @Test
  void aSmallDrillHoldsEveryInvariantAndCleansUp() throws Exception {
    Set<Long> before = liveChildren();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    boolean ok;
    try (Drill drill = new Drill(new Drill.Settings(3, 3, 6, false), out)) {
      ok = drill.run();
    }
    String report = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(ok, () -> "the drill found violations:\n" + report);
    assertPassedAndCleanedUp(report, before);
    assertTrue(report.contains("hosts: loopback"), report);
    assertMembershipTimeline(report);
  }

  /**
   * The membership phases ran and the report's timeline shows them: the killed leader replaced by
   * {@code cn4}, a follower removed and {@code cn5} added in its place, each a success.
   */
  private static void assertMembershipTimeline(String report) {
    assertTrue(report.contains("membership timeline"), report);
    assertTrue(report.matches("(?s).*replace cn\\d \\(disk wiped\\) by cn4 +SUCCESS.*"), report);
    assertTrue(report.matches("(?s).*remove cn\\d +SUCCESS.*"), report);
    assertTrue(
        report.matches("(?s).*add cn5 in place of cn\\d +SUCCESS; members \\[.*cn5.*"), report);
  }

  @Test
  void aSmallDrillOnHostsInNetworkNamespacesPasses() throws Exception {
    Set<Long> before = liveChildren();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    int code =
        ConfigNodeCli.run(
            new String[] {"drill", "--hosts", "netns", "--procedures", "6"},
            new PrintStream(bytes, true, StandardCharsets.UTF_8),
            new PrintStream(errBytes, true, StandardCharsets.UTF_8));
    String report = bytes.toString(StandardCharsets.UTF_8);
    String err = errBytes.toString(StandardCharsets.UTF_8);
    assertEquals(0, code, () -> "exit " + code + ":\n" + report + err);
    assertPassedAndCleanedUp(report, before);
    assertTrue(report.contains("hosts: netns"), report);
    assertTrue(report.contains("raft: mutual TLS"), report);
    assertTrue(report.contains("192.0.2."), "the nodes' addresses are the hosts': " + report);
    assertMembershipTimeline(report);
    assertEquals(List.of(), namespaces(), "every namespace of the drill is removed");
  }

  private static void assertPassedAndCleanedUp(String report, Set<Long> before) {
    assertTrue(report.contains("SIGKILL the leader"), report);
    assertPassedAndCleanedUpAfter(report, before);
  }

  private static void assertPassedAndCleanedUpAfter(String report, Set<Long> before) {
    assertTrue(report.contains("RESULT: every invariant holds"), report);
    assertTrue(report.contains("=== Baton drill report ==="), report);
    assertTrue(
        report.contains("DataNodes: HTTPS with client certificates"),
        "the drill's DataNodes are secured by default: " + report);

    Matcher m = WORKING_IN.matcher(report);
    assertTrue(m.find(), report);
    assertFalse(Files.exists(Path.of(m.group(1))), "the temp dir is removed");
    List<Long> left = liveChildren().stream().filter(pid -> !before.contains(pid)).toList();
    assertEquals(List.of(), left, "every process the drill started is gone");
  }

  @Test
  void aPartitionDrillCutsTheLeaderOffAndReportsItsStepDown() throws Exception {
    Set<Long> before = liveChildren();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    int code =
        ConfigNodeCli.run(
            new String[] {"drill", "--hosts", "netns", "--partition", "--procedures", "6"},
            new PrintStream(bytes, true, StandardCharsets.UTF_8),
            new PrintStream(errBytes, true, StandardCharsets.UTF_8));
    String report = bytes.toString(StandardCharsets.UTF_8);
    String err = errBytes.toString(StandardCharsets.UTF_8);
    assertEquals(0, code, () -> "exit " + code + ":\n" + report + err);
    assertTrue(report.contains("cut the leader"), report);
    assertFalse(report.contains("SIGKILL the leader"), "cut off, not killed: " + report);
    assertTrue(report.contains("timeline (ms after the cut of the leader)"), report);
    assertTrue(report.contains("old leader stepped down"), report);
    assertTrue(report.contains("old leader's executor stopped"), report);
    assertTrue(report.contains("partition healed"), report);
    assertTrue(report.contains("applied what the new leader had at the heal"), report);
    assertPassedAndCleanedUpAfter(report, before);
    assertEquals(List.of(), namespaces(), "every namespace of the drill is removed");
  }

  /** The network namespaces of hosts ({@link NetnsHosts#PREFIX}) that exist. */
  private static List<String> namespaces() throws Exception {
    Process p = new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start();
    assertTrue(p.waitFor(NAMESPACE_LIST_SECONDS, TimeUnit.SECONDS));
    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
        .lines()
        .map(l -> l.strip().split(" ")[0])
        .filter(n -> n.startsWith(NetnsHosts.PREFIX))
        .toList();
  }

  private static Set<Long> liveChildren() {
    return ProcessHandle.current()
        .descendants()
        .filter(ProcessHandle::isAlive)
        .map(ProcessHandle::pid)
        .collect(Collectors.toSet());
  }
}
