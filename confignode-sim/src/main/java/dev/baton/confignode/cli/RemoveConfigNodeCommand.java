package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code confignode-sim remove-confignode --id ID [--wait SECONDS] --cluster ...}: removes a
 * ConfigNode from the Raft group (a {@code RemoveConfigNode} procedure); the removed node stops.
 */
@Command(
    name = "remove-confignode",
    description = {
      "Removes a ConfigNode from the Raft group.",
      "Refused if the members left would have no live majority. The leader hands leadership away"
          + " first when it is the one removed; the removed node stops by itself, and its id is"
          + " never used again. Needs an admin token."
    },
    exitCodeList = {
      ClientCommand.EXIT_DONE_LINE,
      ClientCommand.EXIT_REFUSED_LINE,
      ClientCommand.EXIT_USAGE_LINE,
      ClientCommand.EXIT_NO_NODE_LINE,
      "5:--wait ran out before the change finished",
      "6:--wait saw the change fail (its view says why)"
    })
final class RemoveConfigNodeCommand extends MembershipCommand {
  RemoveConfigNodeCommand() {
    super("remove");
  }

  @Option(names = "--id", required = true, paramLabel = "ID", description = "the node's id")
  String id;

  @Override
  void arguments(ObjectNode body) {
    body.put("id", id);
  }
}
