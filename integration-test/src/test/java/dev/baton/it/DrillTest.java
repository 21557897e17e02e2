package dev.baton.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.drill.Drill;
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
 * are gone.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class DrillTest {
  private static final Pattern WORKING_IN = Pattern.compile("working in (\\S+)");

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
    assertTrue(report.contains("RESULT: every invariant holds"), report);
    assertTrue(report.contains("SIGKILL the leader"), report);
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

  private static Set<Long> liveChildren() {
    return ProcessHandle.current()
        .descendants()
        .filter(ProcessHandle::isAlive)
        .map(ProcessHandle::pid)
        .collect(Collectors.toSet());
  }
}
