package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code confignode-sim replace-confignode --old ID --new ID --address HOST:PORT [--wait SECONDS]
 * --cluster ...}: replaces a ConfigNode (one whose disk died, say) by a new one under a new id (a
 * {@code ReplaceConfigNode} procedure: the old one removed first, then the new one added).
 */
@Command(
    name = "replace-confignode",
    description = {
      "Replaces a ConfigNode under a new id.",
      "Removes the old member first, then adds the new one, which must run already ('node"
          + " --join'); an id never votes twice. Needs an admin token."
    },
    exitCodeList = {
      ClientCommand.EXIT_DONE_LINE,
      ClientCommand.EXIT_REFUSED_LINE,
      ClientCommand.EXIT_USAGE_LINE,
      ClientCommand.EXIT_NO_NODE_LINE,
      "5:--wait ran out before the change finished",
      "6:--wait saw the change fail (its view says why)"
    })
final class ReplaceConfigNodeCommand extends MembershipCommand {
  ReplaceConfigNodeCommand() {
    super("replace");
  }

  @Option(names = "--old", required = true, paramLabel = "ID", description = "the member to remove")
  String oldId;

  @Option(names = "--new", required = true, paramLabel = "ID", description = "the new node's id")
  String newId;

  @Mixin MemberAddressOption address;

  @Override
  void arguments(ObjectNode body) {
    body.put("oldId", oldId);
    body.put("newId", newId);
    body.put("address", address.address);
  }
}
