package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.http.Json;
import dev.baton.procedure.OperatorAction;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * What the operator action commands ({@code bypass}, {@code force-fail}, {@code retry-now}) share:
 * {@code ID --reason R [--dry-run]} sent as {@code POST /api/procedures/ID/ACTION} with {@code
 * {reason, dryRun}}, the answer printed as JSON or, with {@code --format table}, for people: the
 * audit entry of the action, or with {@code --dry-run} the plan (states left, locks released,
 * children affected, effect). A refused action (409, with the refusal), an unknown id or a missing
 * reason is exit {@value ClientCommand#EXIT_REFUSED}.
 */
abstract class ActionCommand extends ClientCommand {
  static final String EXIT_REFUSED_ACTION_LINE =
      "1:the cluster refused the request (unknown id, or the action is refused now)";

  @Parameters(
      index = "0",
      paramLabel = "ID",
      converter = ProcId.class,
      description = "the procedure's id")
  Long id;

  @Option(
      names = "--reason",
      required = true,
      paramLabel = "R",
      description = "why you act; kept with your name in the replicated audit trail")
  String reason;

  @Option(
      names = "--dry-run",
      description = "only print what the action would change; changes nothing")
  boolean dryRun;

  @Mixin FormatOption format;

  @Mixin ClusterOptions cluster;

  /** The action this command asks for. */
  abstract OperatorAction action();

  /** Whether to ask for the procedure's unfinished descendants too (a bypass only). */
  boolean recursive() {
    return false;
  }

  @Override
  final ClusterOptions cluster() {
    return cluster;
  }

  @Override
  final int run(NodeApiClient api) throws IOException, InterruptedException {
    if (reason.isBlank()) {
      throw usageError("--reason must say why; it is kept in the audit trail");
    }
    ObjectNode body = Json.LENIENT.createObjectNode().put("reason", reason);
    if (dryRun) {
      body.put("dryRun", true);
    }
    if (recursive()) {
      body.put("recursive", true);
    }
    JsonNode answer = api.post(GetCommand.path(id) + "/" + action().label(), body);
    if (!format.table()) {
      printJson(out(), answer);
    } else if (dryRun) {
      printPlan(out(), answer);
    } else {
      AuditTablePrinter.print(out(), List.of(answer));
    }
    return 0;
  }

  /** The plan for people: what it would do, then each state change, locks and children. */
  private static void printPlan(PrintStream out, JsonNode plan) {
    out.println(
        "dry run, nothing changed: "
            + plan.path("action").asText()
            + " of procedure "
            + plan.path("procId").asText());
    TextTable states = new TextTable("ID", "TYPE", "FROM", "TO");
    for (JsonNode s : plan.path("states")) {
      states.row(
          s.path("procId").asText(),
          s.path("type").asText("-"),
          s.path("from").asText(),
          s.path("to").asText());
    }
    states.print(out);
    out.println("locks released: " + list(plan.path("locksReleased")));
    out.println("children affected: " + list(plan.path("childrenAffected")));
    out.println("effect: " + plan.path("effect").asText());
  }

  /** "a, b", or "none". */
  private static String list(JsonNode items) {
    List<String> out = new ArrayList<>();
    items.forEach(i -> out.add(i.asText()));
    return out.isEmpty() ? "none" : String.join(", ", out);
  }
}
