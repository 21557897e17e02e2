package dev.baton.confignode.cli;

import dev.baton.procedure.OperatorAction;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code confignode-sim bypass ID --reason R [--recursive] [--dry-run] --cluster ...}: finishes a
 * stuck procedure as SUCCESS without its remaining steps, releasing its locks ({@code POST
 * /api/procedures/ID/bypass}); see {@link ActionCommand}.
 */
@Command(
    name = "bypass",
    description = {
      "Finishes a stuck procedure, skipping its remaining steps.",
      "It ends as SUCCESS and releases its locks; a procedure with unfinished children needs"
          + " --recursive. Recorded with your name and reason in the audit trail."
    },
    exitCodeList = {
      ClientCommand.EXIT_DONE_LINE,
      ActionCommand.EXIT_REFUSED_ACTION_LINE,
      ClientCommand.EXIT_USAGE_LINE,
      ClientCommand.EXIT_NO_NODE_LINE
    })
final class BypassCommand extends ActionCommand {
  @Option(names = "--recursive", description = "also bypass its unfinished descendants")
  boolean recursive;

  @Override
  OperatorAction action() {
    return OperatorAction.BYPASS;
  }

  @Override
  boolean recursive() {
    return recursive;
  }
}
