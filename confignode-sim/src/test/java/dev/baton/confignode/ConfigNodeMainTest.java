package dev.baton.confignode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The top-level dispatch of {@code confignode-sim <command>}. */
@Timeout(10)
class ConfigNodeMainTest {
  private record Result(int code, String out, String err) {}

  private static Result main(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        ConfigNodeMain.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Result(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void topLevelHelpListsTheCommandsAndExitsWith0() {
    Result r = main("--help");
    assertEquals(0, r.code());
    assertTrue(r.out().contains("usage: confignode-sim <command>"), r.out());
    for (String command : ConfigNodeMain.COMMANDS) {
      assertTrue(r.out().contains(command), () -> command + " in " + r.out());
    }
  }

  @Test
  void noCommandIsAUsageErrorOnStderr() {
    Result r = main();
    assertEquals(ConfigNodeMain.EXIT_USAGE, r.code());
    assertTrue(r.err().contains("usage: confignode-sim <command>"), r.err());
    assertEquals("", r.out());
  }

  @Test
  void anUnknownCommandIsAUsageErrorNamingTheCommands() {
    Result r = main("nodes", "--id", "a");
    assertEquals(ConfigNodeMain.EXIT_USAGE, r.code());
    assertTrue(r.err().contains("unknown command 'nodes'"), r.err());
    assertTrue(r.err().contains("node, datanode, drill"), r.err());
  }

  @Test
  void aCommandNotBuiltYetSaysSoWithExit3() {
    Result r = main("submit", "--cluster", "127.0.0.1:1");
    assertEquals(ConfigNodeMain.EXIT_UNAVAILABLE, r.code());
    assertTrue(r.err().contains("'submit' is not available"), r.err());
  }
}
