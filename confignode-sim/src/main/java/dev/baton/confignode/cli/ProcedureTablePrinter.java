package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.admin.ProcedureView;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Procedure views (JSON of {@link ProcedureView}) as a plain-text table for people: id, parent,
 * type, state, step, and why it waits or failed.
 */
final class ProcedureTablePrinter {
  private static final String[] HEADER = {"ID", "PARENT", "TYPE", "STATE", "STEP", "NOTE"};

  /** Longest NOTE shown; longer ones are cut with an ellipsis. */
  static final int MAX_NOTE = 100;

  private static final String GAP = "  ";

  private ProcedureTablePrinter() {}

  static void print(PrintStream out, List<JsonNode> procedures) {
    List<String[]> rows = new ArrayList<>();
    rows.add(HEADER);
    for (JsonNode p : procedures) {
      rows.add(
          new String[] {
            p.path("procId").asText(),
            p.path("parentProcId").asLong(-1) < 0 ? "-" : p.path("parentProcId").asText(),
            p.path("type").asText(),
            p.path("state").asText(),
            p.path("step").asText("-"),
            note(p)
          });
    }
    int[] widths = new int[HEADER.length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.length; i++) {
        line.append(i == row.length - 1 ? row[i] : pad(row[i], widths[i]) + GAP);
      }
      out.println(line.toString().stripTrailing());
    }
  }

  private static String note(JsonNode p) {
    String note =
        p.hasNonNull("failure")
            ? "failed: " + p.get("failure").asText()
            : p.hasNonNull("waitReason") ? "waits: " + p.get("waitReason").asText() : "";
    note = note.replaceAll("\\s+", " ");
    return note.length() <= MAX_NOTE ? note : note.substring(0, MAX_NOTE - 1) + "…";
  }

  private static String pad(String s, int width) {
    return s + " ".repeat(width - s.length());
  }
}
