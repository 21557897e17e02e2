package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code confignode-sim why ID --cluster ... [--format json|table]}: prints why a procedure does
 * not go on, followed to the root cause ({@code GET /api/procedures/ID/why}): each procedure of the
 * chain with what it waits on, then the root cause (or the cycle); an unknown id is the cluster's
 * 404, exit {@value ClientCommand#EXIT_REFUSED}.
 */
@Command(
    name = "why",
    description = {
      "Prints why a procedure waits, followed to the root cause.",
      "The lock it waits for and its holder, what that holder waits on, and so on; a cycle is"
          + " named.",
      "An unknown id is the cluster's 404, exit 1."
    },
    exitCodeList = {
      ClientCommand.EXIT_DONE_LINE,
      ClientCommand.EXIT_REFUSED_LINE,
      ClientCommand.EXIT_USAGE_LINE,
      ClientCommand.EXIT_NO_NODE_LINE
    })
final class WhyCommand extends ViewCommand {
  @Parameters(
      index = "0",
      paramLabel = "ID",
      converter = ProcId.class,
      description = "the procedure's id")
  Long id;

  @Override
  String path() {
    return GetCommand.path(id) + "/why";
  }

  /** One row per procedure of the chain, then the root cause (or the cycle). */
  @Override
  void printTable(PrintStream out, JsonNode chain) {
    TextTable table = new TextTable("ID", "TYPE", "STATE", "STEP", "BLOCKED ON", "WHY");
    for (JsonNode link : chain.path("links")) {
      table.row(
          link.path("procId").asText(),
          link.path("type").asText("-"),
          link.path("state").asText("-"),
          link.path("step").asText("-"),
          link.path("blockedOn").path("kind").asText("-"),
          link.path("waitReason").asText(""));
    }
    table.print(out);
    out.println(
        (chain.path("cycle").asBoolean() ? "deadlock: " : "root cause: ")
            + chain.path("rootCause").asText());
  }
}
