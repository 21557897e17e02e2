package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.http.Json;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code confignode-sim resume --flow ID --node NAME [--action rerun|succeed|fail] --cluster ...}:
 * resumes a PENDING workflow node ({@code POST /api/flows/ID/nodes/NAME/resume} with body {@code
 * {"action": ...}}) and prints the cluster's answer. A cluster without workflows answers 404, shown
 * with its error code and message (exit {@value ClientCommand#EXIT_REFUSED}).
 */
@Command(
    name = "resume",
    description = {
      "Resumes a PENDING workflow node.",
      "Runs it again, or marks it succeeded or failed, and prints the cluster's answer."
    },
    exitCodeList = {
      ClientCommand.EXIT_DONE_LINE,
      ClientCommand.EXIT_REFUSED_LINE,
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

  @Mixin ClusterOptions cluster;

  @Override
  ClusterOptions cluster() {
    return cluster;
  }

  @Override
  int run(NodeApiClient api) throws IOException, InterruptedException {
    ObjectNode body = Json.LENIENT.createObjectNode().put("action", action.sent);
    String path =
        "/api/flows/"
            + flow
            + "/nodes/"
            + URLEncoder.encode(node, StandardCharsets.UTF_8).replace("+", "%20")
            + "/resume";
    printJson(out(), api.post(path, body));
    return 0;
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
