package dev.baton.confignode.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The {@code chaos} command's flags and help; a chaos run itself is ChaosTest (integration-test).
 */
@Timeout(30)
class ChaosCommandTest {
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          four nodes        | chaos --nodes 4       | --nodes must be 3 or 5, got 4
          too many nodes    | chaos --nodes 7       | flag --nodes must be an integer in 3..5
          seed a word       | chaos --seed abc      | --seed must be an integer, got 'abc'
          no seconds        | chaos --seconds 0     | flag --seconds must be an integer in 1..3600
          no datanodes      | chaos --datanodes 0   | flag --datanodes must be an integer in 1..7
          unknown flag      | chaos --speed 5       | unknown flag '--speed'
          negative outage   | chaos --max-outage-ms -1 | flag --max-outage-ms must be an integer in 0..60000
          """)
  void chaosUsageErrorsExitWith2BeforeStartingAnything(String name, String line, String expected) {
    CliRun r = CliRun.main(line.split(" "));
    assertEquals(ConfigNodeCli.EXIT_USAGE, r.code(), name);
    assertTrue(r.err().contains(expected), () -> name + ": " + r.err());
    assertTrue(r.err().contains("usage: confignode-sim chaos"), r.err());
    assertEquals("", r.out(), "nothing started, nothing printed");
  }

  @Test
  void chaosHelpListsEveryFlagAndExitsWith0() {
    CliRun r = CliRun.main("chaos", "--help");
    assertEquals(0, r.code());
    for (String flag :
        List.of(
            "--seed=S",
            "--seconds=N",
            "--nodes=3|5",
            "--datanodes=N",
            "--max-outage-ms=N",
            "--network")) {
      assertTrue(r.out().contains(flag), () -> flag + " in " + r.out());
    }
  }
}
