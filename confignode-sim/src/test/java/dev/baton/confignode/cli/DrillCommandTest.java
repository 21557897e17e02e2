package dev.baton.confignode.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The {@code drill} command's flags and help; the drill itself runs in {@code DrillTest}
 * (integration-test).
 */
@Timeout(30)
class DrillCommandTest {
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      textBlock =
          """
          too few nodes        | drill --nodes 2               | flag --nodes must be an integer in 3..7, got '2'
          too many nodes       | drill --nodes 8               | flag --nodes must be an integer in 3..7
          nodes a word         | drill --nodes three           | flag --nodes must be an integer in 3..7, got 'three'
          too few datanodes    | drill --datanodes 1           | flag --datanodes must be an integer in 3..7
          no procedures        | drill --procedures 0          | flag --procedures must be an integer in 1..10000
          too many procedures  | drill --procedures 10001      | flag --procedures must be an integer in 1..10000
          unknown flag         | drill --speed 5               | unknown flag '--speed'
          stray argument       | drill now                     | unexpected argument 'now'
          flag without value   | drill --nodes                 | flag --nodes N needs a value
          unknown hosts        | drill --hosts vm              | must be loopback or netns, got 'vm'
          netns insecure       | drill --hosts netns --insecure | --insecure and --hosts netns do not go together
          partition loopback   | drill --partition             | --partition needs --hosts netns
          """)
  void drillUsageErrorsExitWith2BeforeStartingAnything(String name, String line, String expected) {
    CliRun r = CliRun.main(line.split(" "));
    assertEquals(ConfigNodeCli.EXIT_USAGE, r.code(), name);
    assertTrue(r.err().contains(expected), () -> name + ": " + r.err());
    assertTrue(r.err().contains("usage: confignode-sim drill"), r.err());
    assertEquals("", r.out(), "nothing started, nothing printed");
  }

  @Test
  void drillHelpListsEveryFlagAndExitsWith0() {
    CliRun r = CliRun.main("drill", "--help");
    assertEquals(0, r.code());
    for (String flag :
        List.of(
            "--nodes=N",
            "--datanodes=N",
            "--procedures=N",
            "--keep-dir",
            "--partition",
            "--hosts=loopback|netns")) {
      assertTrue(r.out().contains(flag), () -> flag + " in " + r.out());
    }
  }
}
