package dev.baton.confignode.auth;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.confignode.http.Json;
import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin API's audit trail: one JSON line per operator action and per refused request, with the
 * time, this node, the principal, the remote address, the action, its target and the result. Never
 * a token or a request body. The file rotates by size: {@code audit.log} becomes {@code
 * audit.log.1}, the older ones shift up, and the oldest beyond {@code keep} is deleted.
 */
public final class AuditLog implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(AuditLog.class);

  /** Rotate once the file is this large, by default. */
  public static final long DEFAULT_MAX_BYTES = 16L << 20;

  /** Rotated files kept, by default. */
  public static final int DEFAULT_KEEP = 5;

  private final Path file;
  private final String nodeId;
  private final long maxBytes;
  private final int keep;
  private final Clock clock;
  private BufferedWriter out;
  private long size;

  private AuditLog(Path file, String nodeId, long maxBytes, int keep, Clock clock) {
    this.file = file;
    this.nodeId = nodeId;
    this.maxBytes = maxBytes;
    this.keep = keep;
    this.clock = clock;
  }

  /** Opens (appending to) {@code file}, creating it and its directory if needed. */
  public static AuditLog open(Path file, String nodeId, long maxBytes, int keep, Clock clock)
      throws IOException {
    if (maxBytes < 1 || keep < 1) {
      throw new IllegalArgumentException(
          "audit log rotation needs maxBytes >= 1 and keep >= 1: " + maxBytes + ", " + keep);
    }
    AuditLog log = new AuditLog(file, nodeId, maxBytes, keep, clock);
    Files.createDirectories(file.toAbsolutePath().getParent());
    log.openFile();
    return log;
  }

  /** As {@link #open(Path, String, long, int, Clock)} with the default rotation and clock. */
  public static AuditLog open(Path file, String nodeId) throws IOException {
    return open(file, nodeId, DEFAULT_MAX_BYTES, DEFAULT_KEEP, Clock.systemUTC());
  }

  public Path file() {
    return file;
  }

  /**
   * Records one event. A failure to write is logged and does not fail the request: the node goes on
   * serving, and the log line says what was lost.
   *
   * @param principal who asked, or null if no valid token was presented
   * @param remote the remote address, as the server saw it
   * @param action what was asked (e.g. {@code submit}, {@code abort}, {@code GET /api/procedures})
   * @param target what it was asked of (a type, a procedure id, a path), or null
   * @param result what came of it (e.g. {@code ok}, {@code 401 unauthenticated}, {@code 403})
   */
  public synchronized void record(
      Principal principal, String remote, String action, String target, String result) {
    ObjectNode line = Json.LENIENT.createObjectNode();
    line.put("time", Instant.now(clock).toString());
    line.put("node", nodeId);
    line.put("principal", principal == null ? null : principal.name());
    line.put("role", principal == null ? null : principal.role().label());
    line.put("remote", remote);
    line.put("action", action);
    line.put("target", target);
    line.put("result", result);
    try {
      String text = Json.LENIENT.writeValueAsString(line) + "\n";
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      if (size > 0 && size + bytes.length > maxBytes) {
        rotate();
      }
      out.write(text);
      out.flush();
      size += bytes.length;
    } catch (IOException | UncheckedIOException e) {
      LOG.error(
          "Audit log {}: could not record {} {} by {}: {}", file, action, target, principal, e);
    }
  }

  private void openFile() throws IOException {
    out =
        Files.newBufferedWriter(
            file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    size = Files.size(file);
  }

  private void rotate() throws IOException {
    out.close();
    Files.deleteIfExists(rotated(keep));
    for (int i = keep - 1; i >= 1; i--) {
      if (Files.exists(rotated(i))) {
        Files.move(rotated(i), rotated(i + 1), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    Files.move(file, rotated(1), StandardCopyOption.REPLACE_EXISTING);
    openFile();
  }

  /** The {@code n}-th rotated file ({@code audit.log.n}). */
  Path rotated(int n) {
    return file.resolveSibling(file.getFileName() + "." + n);
  }

  @Override
  public synchronized void close() throws IOException {
    out.close();
  }
}
