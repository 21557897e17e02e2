package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.client.NodeApiClient;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;

/**
 * The {@code --wait SECONDS} of the commands that submit a procedure: waits for it to finish (a
 * long poll), prints its final view, and says how it ended as the command's exit code.
 */
final class ProcedureWait {
  private ProcedureWait() {}

  /**
   * Waits up to {@code seconds} for procedure {@code id}; 0 if it succeeded, {@value
   * ClientCommand#EXIT_NOT_SUCCESS} if it finished otherwise (its view printed either way), {@value
   * ClientCommand#EXIT_WAIT_TIMEOUT} if it had not finished (its state on {@code err}).
   */
  static int await(
      NodeApiClient api,
      long id,
      int seconds,
      boolean table,
      String command,
      PrintStream out,
      PrintStream err)
      throws IOException, InterruptedException {
    JsonNode view = api.awaitFinished(id, Duration.ofSeconds(seconds));
    if (view.path("finished").asBoolean()) {
      GetCommand.print(out, view, table);
      return "SUCCESS".equals(view.path("state").asText()) ? 0 : ClientCommand.EXIT_NOT_SUCCESS;
    }
    err.println(
        command
            + ": procedure "
            + id
            + " has not finished after "
            + seconds
            + " s (state "
            + view.path("state").asText()
            + ", step "
            + view.path("step").asText("-")
            + ")");
    return ClientCommand.EXIT_WAIT_TIMEOUT;
  }
}
