package dev.baton.confignode.cli;

import dev.baton.procedure.OperatorAction;
import picocli.CommandLine.Command;

/**
 * {@code confignode-sim retry-now ID --reason R [--dry-run] --cluster ...}: ends a procedure's
 * timed wait or retry backoff now ({@code POST /api/procedures/ID/retry-now}); see {@link
 * ActionCommand}.
 */
@Command(
    name = "retry-now",
    description = {
      "Ends a procedure's timed wait or retry backoff now.",
      "It runs (or rolls back) at once. Recorded with your name and reason in the audit trail."
    },
    exitCodeList = {
      ClientCommand.EXIT_DONE_LINE,
      ActionCommand.EXIT_REFUSED_ACTION_LINE,
      ClientCommand.EXIT_USAGE_LINE,
      ClientCommand.EXIT_NO_NODE_LINE
    })
final class RetryNowCommand extends ActionCommand {
  @Override
  OperatorAction action() {
    return OperatorAction.RETRY_NOW;
  }
}
