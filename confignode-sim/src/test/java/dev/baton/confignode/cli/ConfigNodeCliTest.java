package dev.baton.confignode.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The top-level dispatch of {@code confignode-sim <command>}. */
@Timeout(10)
class ConfigNodeCliTest {
  @Test
  void topLevelHelpListsTheCommandsAndExitsWith0() {
    CliRun r = CliRun.main("--help");
    assertEquals(0, r.code());
    assertTrue(r.out().contains("usage: confignode-sim <command>"), r.out());
    for (String command : ConfigNodeCli.COMMANDS) {
      assertTrue(r.out().contains(command), () -> command + " in " + r.out());
    }
  }

  @Test
  void noCommandIsAUsageErrorOnStderr() {
    CliRun r = CliRun.main();
    assertEquals(ConfigNodeCli.EXIT_USAGE, r.code());
    assertTrue(r.err().contains("usage: confignode-sim <command>"), r.err());
    assertEquals("", r.out());
  }

  @Test
  void anUnknownCommandIsAUsageErrorNamingTheCommands() {
    CliRun r = CliRun.main("nodes", "--id", "a");
    assertEquals(ConfigNodeCli.EXIT_USAGE, r.code());
    assertTrue(r.err().contains("unknown command 'nodes'"), r.err());
    assertTrue(r.err().contains("node, datanode, drill"), r.err());
  }

  @ParameterizedTest
  @MethodSource("commands")
  void everyCommandAnswersHelpWithItsUsageAndExit0(String command) {
    CliRun r = CliRun.main(command, "--help");
    assertEquals(0, r.code(), r::toString);
    assertTrue(r.out().startsWith("usage: confignode-sim " + command), r::toString);
  }

  static List<String> commands() {
    return ConfigNodeCli.COMMANDS;
  }
}
