package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code confignode-sim add-confignode --id ID --address HOST:PORT [--wait SECONDS] --cluster ...}:
 * adds a ConfigNode to the Raft group (an {@code AddConfigNode} procedure). Start the node first
 * with {@code node --join}.
 */
@Command(
    name = "add-confignode",
    description = {
      "Adds a ConfigNode to the Raft group.",
      "Start the new node first with 'node --join' (its --peers: the current members and itself);"
          + " the leader stages it until it has caught up, then makes it a voting member. Needs an"
          + " admin token."
    },
    exitCodeList = {
      ClientCommand.EXIT_DONE_LINE,
      ClientCommand.EXIT_REFUSED_LINE,
      ClientCommand.EXIT_USAGE_LINE,
      ClientCommand.EXIT_NO_NODE_LINE,
      "5:--wait ran out before the change finished",
      "6:--wait saw the change fail (its view says why)"
    })
final class AddConfigNodeCommand extends MembershipCommand {
  AddConfigNodeCommand() {
    super("add");
  }

  @Option(names = "--id", required = true, paramLabel = "ID", description = "the new node's id")
  String id;

  @Mixin MemberAddressOption address;

  @Override
  void arguments(ObjectNode body) {
    body.put("id", id);
    body.put("address", address.address);
  }
}
