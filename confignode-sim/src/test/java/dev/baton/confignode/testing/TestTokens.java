package dev.baton.confignode.testing;

import dev.baton.confignode.auth.Role;
import dev.baton.confignode.auth.TokenFile;
import dev.baton.confignode.node.ConfigNodeServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumMap;
import java.util.Map;

/** A token file for tests: principals {@code admin}, {@code op} and {@code reader}, owner-only. */
public final class TestTokens {
  public static final Map<Role, String> TOKENS = new EnumMap<>(Role.class);

  static {
    TOKENS.put(Role.ADMIN, "a".repeat(40));
    TOKENS.put(Role.OPERATOR, "o".repeat(40));
    TOKENS.put(Role.READER, "r".repeat(40));
  }

  private TestTokens() {}

  /** The principal's name of each role in the file. */
  public static String name(Role role) {
    return switch (role) {
      case ADMIN -> "admin";
      case OPERATOR -> "op";
      case READER -> "reader";
    };
  }

  /** A client of {@code node}'s admin API sending {@code role}'s token. */
  public static RawHttp as(Role role, ConfigNodeServer node) {
    return new RawHttp(SimCluster.http(node)).withToken(TOKENS.get(role));
  }

  /** Writes the file into {@code dir} (mode 600) and reads it as a node would. */
  public static TokenFile write(Path dir) throws IOException {
    Path file = dir.resolve("tokens");
    StringBuilder text = new StringBuilder();
    TOKENS.forEach(
        (role, token) ->
            text.append(role.label())
                .append(' ')
                .append(name(role))
                .append(' ')
                .append(token)
                .append('\n'));
    Files.writeString(file, text);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    return TokenFile.read(file);
  }
}
