package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.http.Json;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * {@code confignode-sim resume --flow ID --node NAME [--action rerun|succeed|fail] --cluster ...}:
 * resumes a PENDING workflow node ({@code POST /api/flows/ID/nodes/NAME/resume} with body {@code
 * {"action": ...}}) and prints the cluster's answer. A cluster without workflows answers 404, shown
 * with its error code and message (exit {@value ClientCommand#EXIT_REFUSED}).
 */
final class ResumeCommand {
  static final String NAME = "resume";

  /** The command's action words and the {@code ResumeAction} each one sends. */
  static final Map<String, String> ACTIONS =
      Map.of("rerun", "RERUN", "succeed", "MARK_SUCCEEDED", "fail", "MARK_FAILED");

  /** The action words in the order the help lists them. */
  static final List<String> ACTION_WORDS = List.of("rerun", "succeed", "fail");

  static final String DEFAULT_ACTION = "rerun";

  static final ClientCommand COMMAND =
      new ClientCommand(
          NAME,
          "--flow ID --node NAME [--action rerun|succeed|fail]",
          List.of(
              new CommandLineFlags.Flag("flow", "ID", "the workflow's procedure id", true),
              new CommandLineFlags.Flag("node", "NAME", "the PENDING node of the workflow", true),
              new CommandLineFlags.Flag(
                  "action",
                  "rerun|succeed|fail",
                  "run it again (default), or mark it succeeded or failed",
                  false)),
          List.of(),
          ResumeCommand::resume);

  private ResumeCommand() {}

  private static int resume(
      CommandLineFlags flags, NodeApiClient api, PrintStream out, PrintStream err)
      throws UsageException, IOException, InterruptedException {
    long flow = ClientCommand.procId("--flow", flags.string("flow"));
    String node = flags.string("node");
    String action = flags.string("action", DEFAULT_ACTION);
    if (!ACTIONS.containsKey(action)) {
      throw new UsageException(
          "--action must be one of " + ACTION_WORDS + ", got '" + action + "'");
    }
    ObjectNode body = Json.LENIENT.createObjectNode().put("action", ACTIONS.get(action));
    String path =
        "/api/flows/"
            + flow
            + "/nodes/"
            + URLEncoder.encode(node, StandardCharsets.UTF_8).replace("+", "%20")
            + "/resume";
    ClientCommand.printJson(out, api.post(path, body));
    return 0;
  }
}
