package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.procedure.ProcedureState;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code confignode-sim list [--state S] [--type T] --cluster ... [--format json|table]}: prints
 * the procedures, filtered ({@code GET /api/procedures?state=S&type=T}).
 */
final class ListCommand {
  static final String NAME = "list";

  static final ClientCommand COMMAND =
      new ClientCommand(
          NAME,
          "[--state S] [--type T] [--format json|table]",
          List.of(
              new CommandLineFlags.Flag(
                  "state", "S", "only this state: " + List.of(ProcedureState.values()), false),
              new CommandLineFlags.Flag("type", "T", "only this procedure type", false),
              ClientCommand.FORMAT),
          List.of(),
          ListCommand::list);

  private ListCommand() {}

  private static int list(
      CommandLineFlags flags, NodeApiClient api, PrintStream out, PrintStream err)
      throws UsageException, IOException, InterruptedException {
    List<String> query = new ArrayList<>();
    String state = flags.string("state");
    if (state != null) {
      try {
        ProcedureState.valueOf(state);
      } catch (IllegalArgumentException e) {
        throw new UsageException(
            "unknown state '" + state + "'; states: " + List.of(ProcedureState.values()));
      }
      query.add("state=" + state);
    }
    if (flags.string("type") != null) {
      query.add("type=" + URLEncoder.encode(flags.string("type"), StandardCharsets.UTF_8));
    }
    boolean table = ClientCommand.table(flags);
    JsonNode all =
        api.get("/api/procedures" + (query.isEmpty() ? "" : "?" + String.join("&", query)));
    if (table) {
      List<JsonNode> rows = new ArrayList<>();
      all.forEach(rows::add);
      ProcedureTablePrinter.print(out, rows);
    } else {
      ClientCommand.printJson(out, all);
    }
    return 0;
  }
}
