package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.client.ProcedureWatch;
import dev.baton.confignode.http.Json;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code confignode-sim get ID --cluster ... [--format json|table] [--watch]}: prints one procedure
 * ({@code GET /api/procedures/ID}); an unknown id is the cluster's 404, exit {@value
 * ClientCommand#EXIT_REFUSED}. With {@code --watch} it follows the procedure through the events
 * stream ({@link ProcedureWatch}) and prints each change of its state or step as a line (a JSON
 * object, or words with {@code --format table}) until it finished: exit 0 on success, {@value
 * ClientCommand#EXIT_NOT_SUCCESS} otherwise, {@value ClientCommand#EXIT_WAIT_TIMEOUT} if it had not
 * finished within {@code --timeout} (without it, the watch lasts up to {@value
 * ClientCommand#MAX_SECONDS} s).
 */
@Command(
    name = "get",
    description = {
      "Prints one procedure.",
      "An unknown id is the cluster's 404, exit 1.",
      "With --watch, prints each change of its state or step as a line until it finished, following"
          + " the events stream and resuming on the next node when one goes away."
    },
    exitCodeList = {
      "0:done; with --watch, the procedure succeeded",
      ClientCommand.EXIT_REFUSED_LINE,
      ClientCommand.EXIT_USAGE_LINE,
      ClientCommand.EXIT_NO_NODE_LINE,
      "5:with --watch, the procedure had not finished within --timeout",
      "6:with --watch, the procedure finished without success"
    })
final class GetCommand extends ViewCommand {
  private static final String TIMEOUT_FLAG = "--timeout";

  @Parameters(
      index = "0",
      paramLabel = "ID",
      converter = ProcId.class,
      description = "the procedure's id")
  Long id;

  @Option(
      names = "--watch",
      description =
          "follow the procedure until it finished, a line per change; --timeout bounds the watch")
  boolean watch;

  @Override
  String path() {
    return path(id);
  }

  @Override
  void printTable(PrintStream out, JsonNode view) throws IOException {
    print(out, view, true);
  }

  @Override
  int run(NodeApiClient api) throws IOException, InterruptedException {
    if (!watch) {
      return super.run(api);
    }
    boolean bounded = spec.commandLine().getParseResult().hasMatchedOption(TIMEOUT_FLAG);
    Duration timeout =
        Duration.ofSeconds(bounded ? cluster().timeoutSeconds : ClientCommand.MAX_SECONDS);
    PrintStream out = out();
    ProcedureWatch.Outcome outcome;
    try {
      outcome = new ProcedureWatch(api, id, change -> printChange(out, change)).follow(timeout);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    if (outcome.finished()) {
      return "SUCCESS".equals(outcome.last().path("state").asText()) ? 0 : EXIT_NOT_SUCCESS;
    }
    JsonNode last = outcome.last();
    err()
        .println(
            spec.name()
                + ": procedure "
                + id
                + " has not finished after "
                + timeout.toSeconds()
                + " s"
                + (last == null
                    ? ""
                    : " (state "
                        + last.path("state").asText()
                        + ", step "
                        + last.path("step").asText("-")
                        + ")"));
    return EXIT_WAIT_TIMEOUT;
  }

  /** One change as a line: compact JSON, or words with {@code --format table}. */
  private void printChange(PrintStream out, JsonNode change) {
    if (!format.table()) {
      try {
        out.println(Json.LENIENT.writeValueAsString(change));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return;
    }
    StringBuilder line =
        new StringBuilder()
            .append(change.path("procId").asLong())
            .append(' ')
            .append(change.path("type").asText())
            .append(' ')
            .append(change.path("state").asText());
    if (!change.path("step").isNull() && !change.path("step").asText().isEmpty()) {
      line.append(" step ").append(change.path("step").asText());
    }
    if (change.path("finished").asBoolean()) {
      line.append(" finished");
    }
    if (!change.path("failure").isNull() && !change.path("failure").asText().isEmpty()) {
      line.append(" failure: ").append(change.path("failure").asText());
    }
    out.println(line);
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
