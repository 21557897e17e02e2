package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.http.Paging;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code confignode-sim audit [--principal P] [--proc ID] [--limit N] --cluster ... [--format
 * json|table]}: prints the replicated audit trail of operator actions ({@code GET /api/audit}),
 * filtered, oldest first; with {@code --limit N} only the N most recent that match.
 */
@Command(
    name = "audit",
    description = {
      "Prints the audit trail of operator actions, oldest first.",
      "Who did what to which procedure, when, why, and the outcome; the same on every node."
    },
    exitCodeList = {
      ClientCommand.EXIT_DONE_LINE,
      ClientCommand.EXIT_REFUSED_LINE,
      ClientCommand.EXIT_USAGE_LINE,
      ClientCommand.EXIT_NO_NODE_LINE
    })
final class AuditCommand extends ClientCommand {
  @Option(names = "--principal", paramLabel = "P", description = "only actions of this principal")
  String principal;

  @Option(
      names = "--proc",
      paramLabel = "ID",
      converter = ProcId.class,
      description = "only actions on this procedure")
  Long procId;

  @Bounds(min = 1, max = Paging.MAX_PAGE)
  @Option(
      names = "--limit",
      paramLabel = "N",
      description = "only the N most recent actions that match")
  Integer limit;

  @Mixin FormatOption format;

  @Mixin ClusterOptions cluster;

  @Override
  ClusterOptions cluster() {
    return cluster;
  }

  @Override
  int run(NodeApiClient api) throws IOException, InterruptedException {
    List<String> query = new ArrayList<>();
    if (principal != null) {
      query.add("principal=" + URLEncoder.encode(principal, StandardCharsets.UTF_8));
    }
    if (procId != null) {
      query.add("procId=" + procId);
    }
    ArrayNode all = api.audit(String.join("&", query));
    List<JsonNode> shown = new ArrayList<>();
    all.forEach(shown::add);
    if (limit != null && shown.size() > limit) {
      shown = shown.subList(shown.size() - limit, shown.size());
    }
    if (format.table()) {
      AuditTablePrinter.print(out(), shown);
    } else {
      ArrayNode out = Json.LENIENT.createArrayNode();
      out.addAll(shown);
      printJson(out(), out);
    }
    return 0;
  }
}
