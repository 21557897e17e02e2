package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;

/**
 * {@code confignode-sim locks --cluster ... [--format json|table]}: prints the leader's lock table
 * ({@code GET /api/locks}): each lock with its holders and how long it is held, its waiters in
 * order, then the wait-for cycles among them and how many deadlocks were found this term.
 */
@Command(
    name = "locks",
    description = {
      "Prints the leader's lock table and its wait-for cycles.",
      "Each lock's holders and how long it is held, its waiters in order; then the cycles"
          + " (deadlocks) and how many were found this term."
    },
    exitCodeList = {
      ClientCommand.EXIT_DONE_LINE,
      ClientCommand.EXIT_REFUSED_LINE,
      ClientCommand.EXIT_USAGE_LINE,
      ClientCommand.EXIT_NO_NODE_LINE
    })
final class LocksCommand extends ViewCommand {
  static final String PATH = "/api/locks";

  @Override
  String path() {
    return PATH;
  }

  @Override
  void printTable(PrintStream out, JsonNode table) {
    TextTable rows = new TextTable("RESOURCE", "MODE", "HELD MS", "HOLDERS", "WAITERS");
    for (JsonNode lock : table.path("locks")) {
      rows.row(
          lock.path("resource").asText(),
          lock.path("mode").asText("-"),
          lock.path("heldMillis").asText(),
          procedures(lock.path("holders")),
          procedures(lock.path("waiters")));
    }
    rows.print(out);
    JsonNode cycles = table.path("cycles");
    if (cycles.isEmpty()) {
      out.println("cycles: none");
    }
    for (JsonNode cycle : cycles) {
      List<String> links = new ArrayList<>();
      for (JsonNode link : cycle.path("links")) {
        links.add(link.path("procId").asText() + " " + link.path("reason").asText());
      }
      out.println(
          "cycle: "
              + String.join(" -> ", links)
              + " -> "
              + cycle.path("links").path(0).path("procId").asText());
    }
    out.println(
        "deadlocks found in term "
            + table.path("term").asText()
            + ": "
            + table.path("deadlocks").asText("0"));
  }

  /** "12 MigrateRegion EXCLUSIVE, 14 DeleteDatabase SHARED", in order; "-" for none. */
  private static String procedures(JsonNode list) {
    List<String> out = new ArrayList<>();
    for (JsonNode p : list) {
      out.add(
          p.path("procId").asText()
              + " "
              + p.path("procType").asText()
              + " "
              + p.path("mode").asText());
    }
    return out.isEmpty() ? "-" : String.join(", ", out);
  }
}
