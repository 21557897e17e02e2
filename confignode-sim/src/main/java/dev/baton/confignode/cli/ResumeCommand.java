package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.http.Json;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code confignode-sim resume --flow ID --node NAME --reason R [--action rerun|succeed|fail]
 * [--dry-run] --cluster ...}: resumes a PENDING workflow node ({@code POST
 * /api/flows/ID/nodes/NAME/resume} with body {@code {reason, action, dryRun?}}), an operator action
 * kept with the caller's name and reason in the audit trail, and prints the cluster's answer
 * ({@code {flow, audit}}, or with {@code --dry-run} the plan) as JSON or, with {@code --format
 * table}, for people. A refused resume (409: the node is not PENDING, the flow finished), an
 * unknown flow or node (404) is exit {@value ClientCommand#EXIT_REFUSED}, shown with the node's
 * error code and message.
 */
@Command(
    name = "resume",
    description = {
      "Resumes a PENDING workflow node.",
      "Runs it again, or marks it succeeded or failed, and prints the cluster's answer."
          + " Recorded with your name and reason in the audit trail."
    },
    exitCodeList = {
      ClientCommand.EXIT_DONE_LINE,
      ActionCommand.EXIT_REFUSED_ACTION_LINE,
      ClientCommand.EXIT_USAGE_LINE,
      ClientCommand.EXIT_NO_NODE_LINE
    })
final class ResumeCommand extends ClientCommand {
  /** What to do with the node; the names are the flag's values. */
  enum Action {
    rerun("RERUN"),
    succeed("MARK_SUCCEEDED"),
    fail("MARK_FAILED");

    /** The {@code ResumeAction} sent. */
    final String sent;

    Action(String sent) {
      this.sent = sent;
    }
  }

  @Option(
      names = "--flow",
      required = true,
      paramLabel = "ID",
      converter = ProcId.class,
      description = "the workflow's procedure id")
  Long flow;

  @Option(
      names = "--node",
      required = true,
      paramLabel = "NAME",
      description = "the PENDING node of the workflow")
  String node;

  @Option(
      names = "--action",
      paramLabel = "rerun|succeed|fail",
      converter = ActionConverter.class,
      description = "run it again, or mark it succeeded or failed")
  Action action = Action.rerun;

  @Option(
      names = "--reason",
      required = true,
      paramLabel = "R",
      description = "why you resume it; kept with your name in the replicated audit trail")
  String reason;

  @Option(
      names = "--dry-run",
      description = "only print what the resume would change; changes nothing")
  boolean dryRun;

  @Mixin FormatOption format;

  @Mixin ClusterOptions cluster;

  @Override
  ClusterOptions cluster() {
    return cluster;
  }

  @Override
  int run(NodeApiClient api) throws IOException, InterruptedException {
    if (reason.isBlank()) {
      throw usageError("--reason must say why; it is kept in the audit trail");
    }
    ObjectNode body =
        Json.LENIENT.createObjectNode().put("reason", reason).put("action", action.sent);
    if (dryRun) {
      body.put("dryRun", true);
    }
    String path =
        "/api/flows/"
            + flow
            + "/nodes/"
            + URLEncoder.encode(node, StandardCharsets.UTF_8).replace("+", "%20")
            + "/resume";
    JsonNode answer = api.post(path, body);
    if (!format.table()) {
      printJson(out(), answer);
    } else if (dryRun) {
      printPlan(out(), answer);
    } else {
      AuditTablePrinter.print(out(), List.of(answer.path("audit")));
    }
    return 0;
  }

  /** The plan for people: what it would do, then the node's state change. */
  private static void printPlan(PrintStream out, JsonNode plan) {
    out.println(
        "dry run, nothing changed: resume ("
            + plan.path("resumeAction").asText()
            + ") of node "
            + plan.path("node").asText()
            + " of flow "
            + plan.path("flowId").asText());
    TextTable states = new TextTable("NODE", "FROM", "TO");
    for (JsonNode s : plan.path("states")) {
      states.row(s.path("node").asText(), s.path("from").asText(), s.path("to").asText());
    }
    states.print(out);
    out.println("effect: " + plan.path("effect").asText());
  }

  /** Reads an {@link Action} by its name. */
  static final class ActionConverter implements ITypeConverter<Action> {
    @Override
    public Action convert(String value) {
      try {
        return Action.valueOf(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(
            "must be one of " + List.of(Action.values()) + ", got '" + value + "'");
      }
    }
  }
}
