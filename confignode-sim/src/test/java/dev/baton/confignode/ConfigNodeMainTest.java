package dev.baton.confignode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The top-level dispatch of {@code confignode-sim <command>}. */
@Timeout(10)
class ConfigNodeMainTest {
  @Test
  void topLevelHelpListsTheCommandsAndExitsWith0() {
    CliRun r = CliRun.main("--help");
    assertEquals(0, r.code());
    assertTrue(r.out().contains("usage: confignode-sim <command>"), r.out());
    for (String command : ConfigNodeMain.COMMANDS) {
      assertTrue(r.out().contains(command), () -> command + " in " + r.out());
    }
  }

  @Test
  void noCommandIsAUsageErrorOnStderr() {
    CliRun r = CliRun.main();
    assertEquals(ConfigNodeMain.EXIT_USAGE, r.code());
    assertTrue(r.err().contains("usage: confignode-sim <command>"), r.err());
    assertEquals("", r.out());
  }

  @Test
  void anUnknownCommandIsAUsageErrorNamingTheCommands() {
    CliRun r = CliRun.main("nodes", "--id", "a");
    assertEquals(ConfigNodeMain.EXIT_USAGE, r.code());
    assertTrue(r.err().contains("unknown command 'nodes'"), r.err());
    assertTrue(r.err().contains("node, datanode, drill"), r.err());
  }

  @Test
  void aCommandNotBuiltYetSaysSoWithExit3() {
    CliRun r = CliRun.main("bench", "--nodes", "3");
    assertEquals(ConfigNodeMain.EXIT_UNAVAILABLE, r.code());
    assertTrue(r.err().contains("'bench' is not available"), r.err());
  }
}
