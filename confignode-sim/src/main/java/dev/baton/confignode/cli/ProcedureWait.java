package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.waits.ConfigNodeWaits;
import dev.baton.procedure.util.Poll;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * The {@code --wait SECONDS} of the commands that submit a procedure: polls it until it finished,
 * prints its final view, and says how it ended as the command's exit code.
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
    try {
      JsonNode view =
          Poll.every(ConfigNodeWaits.SUBMIT_WAIT_POLL)
              .within(Duration.ofSeconds(seconds))
              .awaiting("procedure " + id + " finished")
              .until(() -> api.get(GetCommand.path(id)), v -> v.path("finished").asBoolean());
      GetCommand.print(out, view, table);
      return "SUCCESS".equals(view.path("state").asText()) ? 0 : ClientCommand.EXIT_NOT_SUCCESS;
    } catch (TimeoutException e) {
      JsonNode last = api.get(GetCommand.path(id));
      err.println(
          command
              + ": procedure "
              + id
              + " has not finished after "
              + seconds
              + " s (state "
              + last.path("state").asText()
              + ", step "
              + last.path("step").asText("-")
              + ")");
      return ClientCommand.EXIT_WAIT_TIMEOUT;
    }
  }
}
