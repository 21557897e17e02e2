package dev.baton.confignode.cli;

import dev.baton.procedure.OperatorAction;
import picocli.CommandLine.Command;

/**
 * {@code confignode-sim force-fail ID --reason R [--dry-run] --cluster ...}: fails a live procedure
 * now, whether or not it agrees to an abort, so its tree rolls back ({@code POST
 * /api/procedures/ID/force-fail}); see {@link ActionCommand}.
 */
@Command(
    name = "force-fail",
    description = {
      "Fails a live procedure now, so its tree rolls back.",
      "Unlike abort, the procedure cannot refuse. Recorded with your name and reason in the audit"
          + " trail; the reason is the failure's message."
    },
    exitCodeList = {
      ClientCommand.EXIT_DONE_LINE,
      ActionCommand.EXIT_REFUSED_ACTION_LINE,
      ClientCommand.EXIT_USAGE_LINE,
      ClientCommand.EXIT_NO_NODE_LINE
    })
final class ForceFailCommand extends ActionCommand {
  @Override
  OperatorAction action() {
    return OperatorAction.FORCE_FAIL;
  }
}
