package dev.baton.confignode.cluster;

import dev.baton.confignode.auth.Role;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.Map;

/**
 * The token file of a local cluster: one principal per role ({@code drill-admin}, {@code
 * drill-operator}, {@code drill-reader}), each with a random token of {@value #TOKEN_BYTES} bytes
 * in hex from {@link SecureRandom}, written readable by its owner only, as the nodes demand.
 */
public final class ClusterTokens {
  /** Random bytes of each token (64 hex characters). */
  static final int TOKEN_BYTES = 32;

  /** The file's name in the cluster's directory. */
  static final String FILE = "tokens";

  private final Path file;
  private final Map<Role, String> tokens;

  private ClusterTokens(Path file, Map<Role, String> tokens) {
    this.file = file;
    this.tokens = tokens;
  }

  /** Writes a new token file into {@code dir}. */
  public static ClusterTokens write(Path dir) throws IOException {
    SecureRandom random = new SecureRandom();
    Map<Role, String> tokens = new EnumMap<>(Role.class);
    StringBuilder text = new StringBuilder("# ROLE NAME TOKEN, one principal a line\n");
    for (Role role : Role.values()) {
      byte[] bytes = new byte[TOKEN_BYTES];
      random.nextBytes(bytes);
      String token = HexFormat.of().formatHex(bytes);
      tokens.put(role, token);
      text.append(role.label())
          .append(" drill-")
          .append(role.label())
          .append(' ')
          .append(token)
          .append('\n');
    }
    Path file = dir.resolve(FILE);
    if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      Files.createFile(
          file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    }
    Files.writeString(file, text, StandardCharsets.UTF_8);
    return new ClusterTokens(file, tokens);
  }

  public Path file() {
    return file;
  }

  /** The token of the principal with {@code role}. */
  public String token(Role role) {
    return tokens.get(role);
  }

  /**
   * Writes each role's token alone, owner-only, as {@code dir/token-ROLE} (what a client's {@code
   * --token-file} reads); returns the files by role.
   */
  public Map<Role, Path> writeClientFiles(Path dir) throws IOException {
    Map<Role, Path> files = new EnumMap<>(Role.class);
    for (Role role : Role.values()) {
      Path f = dir.resolve("token-" + role.label());
      if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
        Files.createFile(
            f, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      }
      Files.writeString(f, tokens.get(role) + "\n", StandardCharsets.UTF_8);
      files.put(role, f);
    }
    return files;
  }
}
