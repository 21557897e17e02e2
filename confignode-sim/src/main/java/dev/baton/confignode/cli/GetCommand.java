package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.client.NodeApiClient;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;

/**
 * {@code confignode-sim get ID --cluster ... [--format json|table]}: prints one procedure ({@code
 * GET /api/procedures/ID}); an unknown id is the cluster's 404, exit {@value
 * ClientCommand#EXIT_REFUSED}.
 */
final class GetCommand {
  static final String NAME = "get";

  static final ClientCommand COMMAND =
      new ClientCommand(
          NAME,
          "ID [--format json|table]",
          List.of(ClientCommand.FORMAT),
          List.of("ID"),
          GetCommand::get);

  private GetCommand() {}

  private static int get(
      CommandLineFlags flags, NodeApiClient api, PrintStream out, PrintStream err)
      throws UsageException, IOException, InterruptedException {
    long id = ClientCommand.procId("ID", flags.positional(0));
    boolean table = ClientCommand.table(flags);
    print(out, api.get(path(id)), table);
    return 0;
  }

  static String path(long procId) {
    return "/api/procedures/" + procId;
  }

  static void print(PrintStream out, JsonNode view, boolean table) throws IOException {
    if (table) {
      ProcedureTablePrinter.print(out, List.of(view));
    } else {
      ClientCommand.printJson(out, view);
    }
  }
}
