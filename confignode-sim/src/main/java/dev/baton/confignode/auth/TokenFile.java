package dev.baton.confignode.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The principals a node accepts, read from a token file: one line per principal, {@code ROLE NAME
 * TOKEN} (blank lines and lines starting with {@code #} are skipped). The file must be readable by
 * its owner only ({@code rw-------} or {@code r--------}), or the node refuses it: a token anyone
 * on the host can read authenticates anyone.
 *
 * <p>Only SHA-256 digests of the tokens are kept, and a presented token is compared with each of
 * them in constant time, so neither the comparison's duration nor a heap dump gives a token away.
 */
public final class TokenFile {
  /** The shortest token accepted: 128 bits of hex, so guessing one is hopeless. */
  public static final int MIN_TOKEN_LENGTH = 32;

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.@\\-]{1,64}");
  private static final Pattern TOKEN = Pattern.compile("[\\x21-\\x7e]+");

  private static final Set<PosixFilePermission> GROUP_OR_OTHERS =
      EnumSet.complementOf(
          EnumSet.of(
              PosixFilePermission.OWNER_READ,
              PosixFilePermission.OWNER_WRITE,
              PosixFilePermission.OWNER_EXECUTE));

  private record Entry(Principal principal, byte[] digest) {}

  private final List<Entry> entries;

  private TokenFile(List<Entry> entries) {
    this.entries = List.copyOf(entries);
  }

  /**
   * Reads {@code file}.
   *
   * @throws IOException if it cannot be read, is open to the group or others, or a line is not
   *     {@code ROLE NAME TOKEN} (the message names the line, never a token)
   */
  public static TokenFile read(Path file) throws IOException {
    if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
      Set<PosixFilePermission> open = EnumSet.copyOf(GROUP_OR_OTHERS);
      open.retainAll(perms);
      if (!open.isEmpty()) {
        throw new IOException(
            "token file "
                + file
                + " is "
                + PosixFilePermissions.toString(perms)
                + ": others on this host could read the tokens; restrict it with: chmod 600 "
                + file);
      }
    }
    List<Entry> entries = new ArrayList<>();
    Set<String> names = new HashSet<>();
    Set<String> digests = new HashSet<>();
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String where = "token file " + file + " line " + (i + 1);
      String[] parts = line.split("\\s+");
      if (parts.length != 3) {
        throw new IOException(where + ": expected ROLE NAME TOKEN");
      }
      Role role;
      try {
        role = Role.parse(parts[0]);
      } catch (IllegalArgumentException e) {
        throw new IOException(where + ": " + e.getMessage());
      }
      if (!NAME.matcher(parts[1]).matches()) {
        throw new IOException(where + ": a name is 1-64 letters, digits, '_', '.', '@' or '-'");
      }
      if (parts[2].length() < MIN_TOKEN_LENGTH || !TOKEN.matcher(parts[2]).matches()) {
        throw new IOException(
            where
                + ": a token is at least "
                + MIN_TOKEN_LENGTH
                + " printable characters without spaces");
      }
      if (!names.add(parts[1])) {
        throw new IOException(where + ": principal '" + parts[1] + "' is named twice");
      }
      byte[] digest = digest(parts[2]);
      if (!digests.add(java.util.HexFormat.of().formatHex(digest))) {
        throw new IOException(where + ": the same token as an earlier line");
      }
      entries.add(new Entry(new Principal(parts[1], role), digest));
    }
    if (entries.isEmpty()) {
      throw new IOException("token file " + file + " names no principal (ROLE NAME TOKEN lines)");
    }
    return new TokenFile(entries);
  }

  /** The principal whose token is {@code token}, or empty. Takes the same time whatever matches. */
  public Optional<Principal> authenticate(String token) {
    if (token == null) {
      return Optional.empty();
    }
    byte[] presented = digest(token);
    Principal found = null;
    for (Entry e : entries) {
      if (MessageDigest.isEqual(e.digest(), presented)) {
        found = e.principal();
      }
    }
    return Optional.ofNullable(found);
  }

  /** The principals this file names. */
  public List<Principal> principals() {
    return entries.stream().map(Entry::principal).toList();
  }

  private static byte[] digest(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }
}
