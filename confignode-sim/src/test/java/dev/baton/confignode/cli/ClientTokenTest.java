package dev.baton.confignode.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.auth.Role;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.confignode.testing.TestTokens;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The client commands against a node that needs tokens: {@code --token-file} sends the token, a
 * missing or wrong one is refused by the node (exit 1), an unreadable file is a usage error (exit
 * 2), and {@code BATON_TOKEN} is read when no file is given.
 */
@Timeout(120)
class ClientTokenTest {
  @TempDir static Path dir;
  private static SimCluster cluster;
  private static String address;

  @BeforeAll
  static void start() throws Exception {
    cluster = SimCluster.startWithTokens(dir, 1, 0);
    address = SimCluster.http(cluster.leader());
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Path tokenFile(String name, String content) throws Exception {
    return Files.writeString(dir.resolve(name), content);
  }

  @Test
  void aTokenFromTheFileIsSentAndItsRoleApplies() throws Exception {
    Path operator = tokenFile("op.token", "\n  " + TestTokens.TOKENS.get(Role.OPERATOR) + "  \n");
    CliRun ok =
        CliRun.main(
            "submit", "--cluster", address, "--token-file", operator.toString(), "--type", "Noop");
    assertEquals(0, ok.code(), ok::toString);

    Path reader = tokenFile("reader.token", TestTokens.TOKENS.get(Role.READER));
    CliRun forbidden =
        CliRun.main(
            "submit", "--cluster", address, "--token-file", reader.toString(), "--type", "Noop");
    assertEquals(ClientCommand.EXIT_REFUSED, forbidden.code(), forbidden::toString);
    assertTrue(forbidden.err().contains("operator"), forbidden.err());
    CliRun listed = CliRun.main("list", "--cluster", address, "--token-file", reader.toString());
    assertEquals(0, listed.code(), listed::toString);
  }

  @Test
  void noTokenIsRefusedByTheNodeAndABadFileIsAUsageError() throws Exception {
    CliRun none = CliRun.main("list", "--cluster", address);
    assertEquals(ClientCommand.EXIT_REFUSED, none.code(), none::toString);
    assertTrue(none.err().contains("token"), none.err());

    CliRun missing =
        CliRun.main(
            "list", "--cluster", address, "--token-file", dir.resolve("nowhere").toString());
    assertEquals(ConfigNodeCli.EXIT_USAGE, missing.code(), missing::toString);
    assertTrue(missing.err().contains("--token-file"), missing.err());

    Path empty = tokenFile("empty.token", "\n\n");
    CliRun blank = CliRun.main("list", "--cluster", address, "--token-file", empty.toString());
    assertEquals(ConfigNodeCli.EXIT_USAGE, blank.code(), blank::toString);
    assertTrue(blank.err().contains("holds no token"), blank.err());
  }

  @Test
  void theEnvironmentGivesTheTokenWhenNoFileIsNamed() throws Exception {
    ClusterOptions options = new ClusterOptions();
    new CommandLine(options).parseArgs("--cluster", address);
    assertEquals(
        Optional.of("secret"), options.token(Map.of(ClusterOptions.TOKEN_ENV, " secret ")::get));
    assertEquals(Optional.empty(), options.token(Map.<String, String>of()::get));
    Path file = tokenFile("file.token", "from-file");
    new CommandLine(options).parseArgs("--cluster", address, "--token-file", file.toString());
    assertEquals(
        Optional.of("from-file"),
        options.token(Map.of(ClusterOptions.TOKEN_ENV, "from-env")::get),
        "the file wins");
  }
}
