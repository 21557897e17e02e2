package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.client.NodeApiClient;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;

/**
 * {@code confignode-sim abort ID --cluster ...}: asks the leader to abort a procedure ({@code POST
 * /api/procedures/ID/abort}) and prints the answer {@code {"aborted": true|false}}. Exit 0 if it
 * was aborted, {@value ClientCommand#EXIT_REFUSED} if not (finished already, or the procedure does
 * not support abort in its current step).
 */
final class AbortCommand {
  static final String NAME = "abort";

  static final ClientCommand COMMAND =
      new ClientCommand(NAME, "ID", List.of(), List.of("ID"), AbortCommand::abort);

  private AbortCommand() {}

  private static int abort(
      CommandLineFlags flags, NodeApiClient api, PrintStream out, PrintStream err)
      throws UsageException, IOException, InterruptedException {
    long id = ClientCommand.procId("ID", flags.positional(0));
    JsonNode answer = api.post(GetCommand.path(id) + "/abort", null);
    ClientCommand.printJson(out, answer);
    if (answer.path("aborted").asBoolean()) {
      return 0;
    }
    err.println(NAME + ": procedure " + id + " was not aborted (finished, or it refuses abort)");
    return ClientCommand.EXIT_REFUSED;
  }
}
