package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.admin.ProcedureView;
import java.io.PrintStream;
import java.util.List;

/**
 * Procedure views (JSON of {@link ProcedureView}) as a plain-text table for people: id, parent,
 * type, state, step, and why it waits or failed.
 */
final class ProcedureTablePrinter {
  private ProcedureTablePrinter() {}

  static void print(PrintStream out, List<JsonNode> procedures) {
    TextTable table = new TextTable("ID", "PARENT", "TYPE", "STATE", "STEP", "NOTE");
    for (JsonNode p : procedures) {
      table.row(
          p.path("procId").asText(),
          p.path("parentProcId").asLong(-1) < 0 ? "-" : p.path("parentProcId").asText(),
          p.path("type").asText(),
          p.path("state").asText(),
          p.path("step").asText("-"),
          note(p));
    }
    table.print(out);
  }

  private static String note(JsonNode p) {
    return p.hasNonNull("failure")
        ? "failed: " + p.get("failure").asText()
        : p.hasNonNull("waitReason") ? "waits: " + p.get("waitReason").asText() : "";
  }
}
