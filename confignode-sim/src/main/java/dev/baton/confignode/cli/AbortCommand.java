package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.http.Json;
import java.io.IOException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code confignode-sim abort ID [--reason R] --cluster ...}: asks the leader to abort a procedure
 * ({@code POST /api/procedures/ID/abort}, with {@code {reason}} when given: then the abort is kept
 * with the caller's principal in the replicated audit trail) and prints the answer {@code
 * {"aborted": true|false}} (with a reason, also its {@code audit} entry). Exit 0 if it was aborted,
 * {@value ClientCommand#EXIT_REFUSED} if not (finished already, or the procedure does not support
 * abort in its current step).
 */
@Command(
    name = "abort",
    description = {
      "Asks the leader to abort a procedure.",
      "With --reason, the abort is kept with your name and the reason in the replicated audit"
          + " trail.",
      "Prints the answer {\"aborted\": true|false}; a procedure that finished already, or refuses"
          + " abort in its current step, is not aborted (exit 1)."
    },
    exitCodeList = {
      "0:aborted",
      "1:the cluster refused the request, or the procedure was not aborted",
      ClientCommand.EXIT_USAGE_LINE,
      ClientCommand.EXIT_NO_NODE_LINE
    })
final class AbortCommand extends ClientCommand {
  @Parameters(
      index = "0",
      paramLabel = "ID",
      converter = ProcId.class,
      description = "the procedure's id")
  Long id;

  @Option(
      names = "--reason",
      paramLabel = "R",
      description = "why you abort; kept with your name in the replicated audit trail")
  String reason;

  @Mixin ClusterOptions cluster;

  @Override
  ClusterOptions cluster() {
    return cluster;
  }

  @Override
  int run(NodeApiClient api) throws IOException, InterruptedException {
    if (reason != null && reason.isBlank()) {
      throw usageError("--reason must say why, got a blank reason");
    }
    ObjectNode body = null;
    if (reason != null) {
      body = Json.LENIENT.createObjectNode().put("reason", reason.strip());
    }
    JsonNode answer = api.post(GetCommand.path(id) + "/abort", body);
    printJson(out(), answer);
    if (answer.path("aborted").asBoolean()) {
      return 0;
    }
    err()
        .println(
            spec.name() + ": procedure " + id + " was not aborted (finished, or it refuses abort)");
    return EXIT_REFUSED;
  }
}
