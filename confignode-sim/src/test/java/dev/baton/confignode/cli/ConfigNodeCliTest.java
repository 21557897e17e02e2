package dev.baton.confignode.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The top level of {@code confignode-sim <command>}: help, version, completion, and the usage
 * errors every command shares (misspelled commands and flags, with suggestions).
 */
@Timeout(10)
class ConfigNodeCliTest {
  private static final List<String> COMMANDS =
      List.of(
          "node",
          "datanode",
          "drill",
          "chaos",
          "bench",
          "submit",
          "get",
          "list",
          "abort",
          "resume",
          "why",
          "locks",
          "bypass",
          "force-fail",
          "retry-now",
          "audit",
          "add-confignode",
          "remove-confignode",
          "replace-confignode",
          "rolling-restart",
          "certs",
          "completion");

  /** The client commands: from submit to rolling-restart. */
  private static final List<String> CLIENT_COMMANDS =
      COMMANDS.subList(COMMANDS.indexOf("submit"), COMMANDS.indexOf("rolling-restart") + 1);

  @Test
  void theCommandsAreThoseOfTheJar() {
    assertEquals(COMMANDS, ConfigNodeCli.commandNames());
  }

  @Test
  void topLevelHelpListsEveryCommandOnceOnOneLineAndExitsWith0() {
    CliRun r = CliRun.main("--help");
    assertEquals(0, r.code(), r::toString);
    assertEquals("", r.err(), r::toString);
    assertTrue(r.out().contains("usage: confignode-sim [-hV] <command>"), r::toString);
    List<String> listed =
        r.out()
            .lines()
            .dropWhile(l -> !l.equals("Commands:"))
            .skip(1)
            .takeWhile(l -> !l.isBlank())
            .toList();
    assertEquals(COMMANDS.size(), listed.size(), () -> "one line per command: " + listed);
    for (int i = 0; i < COMMANDS.size(); i++) {
      assertTrue(
          listed.get(i).matches("  " + COMMANDS.get(i) + " +\\S.*"), () -> "listed: " + listed);
    }
  }

  @Test
  void noCommandIsAUsageErrorOnStderr() {
    CliRun r = CliRun.main();
    assertEquals(ConfigNodeCli.EXIT_USAGE, r.code());
    assertTrue(r.err().contains("usage: confignode-sim [-hV] <command>"), r.err());
    assertTrue(r.err().contains("submit"), r.err());
    assertEquals("", r.out());
  }

  @Test
  void anUnknownCommandIsAUsageErrorNamingTheCommands() {
    CliRun r = CliRun.main("nodes", "--id", "a");
    assertEquals(ConfigNodeCli.EXIT_USAGE, r.code());
    assertTrue(r.err().contains("unknown command 'nodes'"), r.err());
    assertTrue(r.err().contains("node, datanode, drill"), r.err());
    assertEquals("", r.out());
  }

  @Test
  void aMisspelledCommandIsAnsweredWithTheRightOne() {
    CliRun r = CliRun.main("sbumit", "--type", "Noop");
    assertEquals(ConfigNodeCli.EXIT_USAGE, r.code(), r::toString);
    assertTrue(r.err().contains("unknown command 'sbumit'"), r::toString);
    assertTrue(r.err().contains("Did you mean: confignode-sim submit"), r::toString);
    assertEquals("", r.out(), r::toString);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          cluster misspelled | submit --type Noop --clustr 127.0.0.1:1 | --clustr  | --cluster
          timeout misspelled | get 1 --cluster 127.0.0.1:1 --timout 5  | --timout  | --timeout
          peers misspelled   | node --id a --peer a=127.0.0.1:5000     | --peer    | --peers
          procedures, = form | drill --procedure=20                    | --procedure | --procedures
          """)
  void aMisspelledFlagIsAnsweredWithTheRightOne(
      String name, String line, String wrong, String right) {
    CliRun r = CliRun.main(line.split(" "));
    assertEquals(ConfigNodeCli.EXIT_USAGE, r.code(), r::toString);
    assertTrue(r.err().contains("unknown flag '" + wrong + "'"), r::toString);
    assertTrue(r.err().contains("Possible solutions: " + right), r::toString);
    assertEquals("", r.out(), r::toString);
  }

  @ParameterizedTest
  @MethodSource("commands")
  void everyCommandAnswersHelpWithItsUsageAndExit0(String command) {
    CliRun r = CliRun.main(command, "--help");
    assertEquals(0, r.code(), r::toString);
    assertTrue(r.out().startsWith("usage: confignode-sim " + command), r::toString);
    assertEquals("", r.err(), r::toString);
  }

  /** The shared options are one mixin: each is listed once, with its default. */
  @ParameterizedTest
  @MethodSource("clientCommands")
  void clientCommandHelpShowsTheClusterOptionsOnceWithTheirDefaults(String command) {
    CliRun r = CliRun.main(command, "--help");
    assertEquals(0, r.code(), r::toString);
    List<String> options = optionLines(r.out());
    assertEquals(1, count(options, "--cluster="), r::toString);
    assertEquals(1, count(options, "--timeout="), r::toString);
    assertEquals(
        "Default: " + ClientCommand.DEFAULT_TIMEOUT_SECONDS, defaultOf(r.out(), "--timeout="));
    if (List.of("submit", "get", "list").contains(command)) {
      assertEquals(1, count(options, "--format="), r::toString);
      assertEquals("Default: json", defaultOf(r.out(), "--format="));
    }
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({
    "node, --snapshot-every=, 1000",
    "node, --election-timeout-ms=, '300,600'",
    "node, --request-timeout-ms=, 10000",
    "drill, --procedures=, 30",
    "drill, --nodes=, 3",
    "chaos, --seconds=, 60",
    "chaos, --max-outage-ms=, 3000",
    "bench, --workers=, 8",
    "resume, --action=, rerun"
  })
  void helpShowsTheDefaults(String command, String option, String value) {
    CliRun r = CliRun.main(command, "--help");
    assertEquals("Default: " + value, defaultOf(r.out(), option), r::toString);
  }

  @Test
  void requiredFlagsShowNoDefault() {
    CliRun r = CliRun.main("node", "--help");
    assertEquals(null, defaultOf(r.out(), "--http-port="), r::toString);
    assertTrue(r.out().contains("*     --http-port=PORT"), "marked required: " + r.out());
  }

  @ParameterizedTest
  @ValueSource(strings = {"--version", "-V"})
  void versionPrintsTheProjectVersion(String flag) {
    CliRun r = CliRun.main(flag);
    assertEquals(0, r.code(), r::toString);
    Matcher m = Pattern.compile("confignode-sim (\\d+\\.\\d+\\.\\d+\\S*)\\R").matcher(r.out());
    assertTrue(m.matches(), r::toString);
    assertEquals(System.getProperty("project.version"), m.group(1), "the pom's version");
  }

  @Test
  void completionPrintsABashScriptNamingTheCommandsAndFlags() {
    CliRun r = CliRun.main("completion");
    assertEquals(0, r.code(), r::toString);
    assertTrue(r.out().startsWith("#!/usr/bin/env bash"), r.out().lines().findFirst()::toString);
    assertTrue(r.out().contains("complete -F _complete_confignode-sim"), "registers itself");
    for (String command : COMMANDS) {
      assertTrue(r.out().contains(command), command);
    }
    for (String flag : List.of("--cluster", "--election-timeout-ms", "--procedures")) {
      assertTrue(r.out().contains(flag), flag);
    }
    assertEquals("", r.err());
  }

  static List<String> commands() {
    return COMMANDS;
  }

  static List<String> clientCommands() {
    return CLIENT_COMMANDS;
  }

  /** Whether a line of the help starts an option (not a wrapped description or synopsis). */
  private static boolean startsAnOption(String line) {
    return line.matches("[* ] {1,5}(-\\w, )?--\\S.*");
  }

  private static List<String> optionLines(String help) {
    return help.lines().filter(ConfigNodeCliTest::startsAnOption).toList();
  }

  private static long count(List<String> lines, String option) {
    return lines.stream().filter(l -> l.contains(option)).count();
  }

  /** The {@code Default: X} line of an option's description, or null. */
  private static String defaultOf(String help, String option) {
    List<String> lines = help.lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      if (startsAnOption(lines.get(i)) && lines.get(i).contains(option)) {
        for (int j = i + 1; j < lines.size() && !startsAnOption(lines.get(j)); j++) {
          if (lines.get(j).strip().startsWith("Default: ")) {
            return lines.get(j).strip();
          }
        }
        return null;
      }
    }
    return null;
  }
}
