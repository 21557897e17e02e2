package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.time.Instant;
import java.util.List;

/**
 * Entries of the audit trail of operator actions (JSON of {@code AuditEntry}) as a plain-text table
 * for people: log index, time, principal, action, procedure, outcome and reason.
 */
final class AuditTablePrinter {
  private AuditTablePrinter() {}

  static void print(PrintStream out, List<JsonNode> entries) {
    TextTable table =
        new TextTable("INDEX", "TIME", "PRINCIPAL", "ACTION", "PROC", "OUTCOME", "REASON");
    for (JsonNode e : entries) {
      table.row(
          e.path("index").asText(),
          Instant.ofEpochMilli(e.path("timeMillis").asLong()).toString(),
          e.path("principal").asText(),
          action(e),
          e.path("procId").asText(),
          outcome(e),
          e.path("reason").asText());
    }
    table.print(out);
  }

  /** The action, with a bypass's recursion or a flow resume's node and how. */
  private static String action(JsonNode e) {
    String action = e.path("action").asText();
    if (e.path("recursive").asBoolean()) {
      return action + " (recursive)";
    }
    String node = e.path("flowNode").asText("");
    return node.isEmpty()
        ? action
        : action + " node " + node + " (" + e.path("resumeAction").asText() + ")";
  }

  private static String outcome(JsonNode e) {
    if (!e.path("decided").asBoolean()) {
      return "pending";
    }
    return (e.path("refused").asBoolean() ? "refused: " : "") + e.path("outcome").asText();
  }
}
