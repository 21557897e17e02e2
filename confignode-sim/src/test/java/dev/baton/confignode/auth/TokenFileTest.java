package dev.baton.confignode.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class TokenFileTest {
  static final String READER_TOKEN = "r".repeat(TokenFile.MIN_TOKEN_LENGTH);
  static final String OPERATOR_TOKEN = "o".repeat(TokenFile.MIN_TOKEN_LENGTH);
  static final String ADMIN_TOKEN = "a".repeat(TokenFile.MIN_TOKEN_LENGTH);

  @TempDir Path dir;

  static Path write(Path dir, String mode, String... lines) throws IOException {
    Path file = dir.resolve("tokens");
    Files.write(file, List.of(lines));
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
    return file;
  }

  static Path standard(Path dir) throws IOException {
    return write(
        dir,
        "rw-------",
        "# role name token",
        "reader grafana " + READER_TOKEN,
        "",
        "operator alice " + OPERATOR_TOKEN,
        "ADMIN root " + ADMIN_TOKEN);
  }

  @Test
  void eachTokenAuthenticatesItsPrincipalAndNothingElseDoes() throws IOException {
    TokenFile tokens = TokenFile.read(standard(dir));
    assertEquals(
        Optional.of(new Principal("grafana", Role.READER)), tokens.authenticate(READER_TOKEN));
    assertEquals(
        Optional.of(new Principal("alice", Role.OPERATOR)), tokens.authenticate(OPERATOR_TOKEN));
    assertEquals(Optional.of(new Principal("root", Role.ADMIN)), tokens.authenticate(ADMIN_TOKEN));
    assertTrue(tokens.authenticate("x".repeat(TokenFile.MIN_TOKEN_LENGTH)).isEmpty());
    assertTrue(tokens.authenticate(ADMIN_TOKEN + "x").isEmpty());
    assertTrue(tokens.authenticate("").isEmpty());
    assertTrue(tokens.authenticate(null).isEmpty());
  }

  @Test
  void aFileOthersCanReadIsRefusedNamingTheFix() throws IOException {
    Path file = write(dir, "rw-r--r--", "admin root " + ADMIN_TOKEN);
    IOException e = assertThrows(IOException.class, () -> TokenFile.read(file));
    assertTrue(e.getMessage().contains("chmod 600"), e.getMessage());
  }

  @Test
  void badLinesAreRefusedNamingTheLineButNeverTheToken() throws IOException {
    String[][] cases = {
      {"root " + ADMIN_TOKEN, "expected ROLE NAME TOKEN"},
      {"boss root " + ADMIN_TOKEN, "unknown role 'boss'"},
      {"admin root short", "at least " + TokenFile.MIN_TOKEN_LENGTH},
      {"admin ro/ot " + ADMIN_TOKEN, "a name is"},
    };
    for (String[] c : cases) {
      Path file = write(dir, "rw-------", "# header", c[0]);
      IOException e = assertThrows(IOException.class, () -> TokenFile.read(file), c[0]);
      assertTrue(e.getMessage().contains("line 2"), e.getMessage());
      assertTrue(e.getMessage().contains(c[1]), e.getMessage());
      assertFalse(e.getMessage().contains(ADMIN_TOKEN), "the token leaks: " + e.getMessage());
    }
    Path twice = write(dir, "rw-------", "admin a " + ADMIN_TOKEN, "reader b " + ADMIN_TOKEN);
    assertTrue(
        assertThrows(IOException.class, () -> TokenFile.read(twice))
            .getMessage()
            .contains("same token"));
    Path empty = write(dir, "rw-------", "# nobody");
    assertThrows(IOException.class, () -> TokenFile.read(empty));
  }
}
