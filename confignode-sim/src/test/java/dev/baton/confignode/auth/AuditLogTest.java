package dev.baton.confignode.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.http.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class AuditLogTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-11-26T12:00:00Z"), ZoneOffset.UTC);

  @TempDir Path dir;

  @Test
  void oneJsonLinePerEventWithEveryField() throws IOException {
    Path file = dir.resolve("audit/audit.log");
    try (AuditLog log = AuditLog.open(file, "cn1", 1 << 20, 2, CLOCK)) {
      log.record(new Principal("alice", Role.OPERATOR), "127.0.0.1:5000", "submit", "Noop", "ok");
      log.record(null, "127.0.0.1:5001", "POST /api/procedures", null, "401 unauthenticated");
    }
    List<String> lines = Files.readAllLines(file);
    assertEquals(2, lines.size());
    JsonNode first = Json.LENIENT.readTree(lines.get(0));
    assertEquals("2026-11-26T12:00:00Z", first.get("time").asText());
    assertEquals("cn1", first.get("node").asText());
    assertEquals("alice", first.get("principal").asText());
    assertEquals("operator", first.get("role").asText());
    assertEquals("127.0.0.1:5000", first.get("remote").asText());
    assertEquals("submit", first.get("action").asText());
    assertEquals("Noop", first.get("target").asText());
    assertEquals("ok", first.get("result").asText());
    JsonNode second = Json.LENIENT.readTree(lines.get(1));
    assertTrue(second.get("principal").isNull());
    assertEquals("401 unauthenticated", second.get("result").asText());
  }

  @Test
  void theFileRotatesBySizeKeepingTheNewestFiles() throws IOException {
    Path file = dir.resolve("audit.log");
    int keep = 2;
    try (AuditLog log = AuditLog.open(file, "cn1", 300, keep, CLOCK)) {
      for (int i = 0; i < 20; i++) {
        log.record(null, "r", "action" + i, "t", "ok");
      }
      assertTrue(Files.size(file) <= 300, "current file " + Files.size(file));
      assertTrue(Files.exists(log.rotated(1)));
      assertTrue(Files.exists(log.rotated(keep)));
      assertFalse(Files.exists(log.rotated(keep + 1)), "more files kept than " + keep);
      List<String> newest = Files.readAllLines(file);
      assertTrue(newest.get(newest.size() - 1).contains("action19"), newest.toString());
    }
  }
}
