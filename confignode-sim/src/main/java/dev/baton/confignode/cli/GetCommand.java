package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code confignode-sim get ID --cluster ... [--format json|table]}: prints one procedure ({@code
 * GET /api/procedures/ID}); an unknown id is the cluster's 404, exit {@value
 * ClientCommand#EXIT_REFUSED}.
 */
@Command(
    name = "get",
    description = {"Prints one procedure.", "An unknown id is the cluster's 404, exit 1."},
    exitCodeList = {
      ClientCommand.EXIT_DONE_LINE,
      ClientCommand.EXIT_REFUSED_LINE,
      ClientCommand.EXIT_USAGE_LINE,
      ClientCommand.EXIT_NO_NODE_LINE
    })
final class GetCommand extends ViewCommand {
  @Parameters(
      index = "0",
      paramLabel = "ID",
      converter = ProcId.class,
      description = "the procedure's id")
  Long id;

  @Override
  String path() {
    return path(id);
  }

  @Override
  void printTable(PrintStream out, JsonNode view) throws IOException {
    print(out, view, true);
  }

  static String path(long procId) {
    return "/api/procedures/" + procId;
  }

  static void print(PrintStream out, JsonNode view, boolean table) throws IOException {
    if (table) {
      ProcedureTablePrinter.print(out, List.of(view));
    } else {
      printJson(out, view);
    }
  }
}
