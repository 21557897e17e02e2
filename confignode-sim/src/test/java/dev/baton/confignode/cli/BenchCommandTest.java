package dev.baton.confignode.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The {@code bench} command's flags; a bench run itself (ConfigNode processes) is {@code BenchTest}
 * in integration-test.
 */
@Timeout(30)
class BenchCommandTest {
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          no procedures  | bench --procedures 0      | flag --procedures must be an integer in 1..1000000
          steps a word   | bench --steps many        | flag --steps must be an integer in 1..1000
          no clients     | bench --clients 0         | flag --clients must be an integer in 1..256
          negative rate  | bench --rate -5           | flag --rate must be an integer in 0..100000
          too many nodes | bench --nodes 8           | flag --nodes must be an integer in 1..7
          negative warmup | bench --warmup-seconds -1 | flag --warmup-seconds must be an integer in 0..3600
          negative max failures | bench --max-failures -1 | flag --max-failures must be an integer in 0..2147483647
          unknown flag   | bench --speed 5           | unknown flag '--speed'
          """)
  void usageErrorsExit2BeforeStartingAnything(String name, String line, String want) {
    CliRun r = CliRun.main(line.split(" "));
    assertEquals(ConfigNodeCli.EXIT_USAGE, r.code(), r::toString);
    assertTrue(r.err().contains(want), r::toString);
    assertTrue(r.err().contains("usage: confignode-sim bench"), r::toString);
    assertEquals("", r.out(), r::toString);
  }
}
