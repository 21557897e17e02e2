package dev.baton.confignode.cli;

import picocli.AutoComplete;
import picocli.CommandLine.Command;

/** {@code confignode-sim completion}: prints a bash completion script for every command. */
@Command(
    name = "completion",
    description = {
      "Prints a bash completion script.",
      "It completes the command name confignode-sim, e.g. a script or alias that runs"
          + " 'java -jar confignode-sim.jar': source <(confignode-sim completion)"
    },
    exitCodeList = {"0:printed"})
final class CompletionCommand extends CliCommand {
  @Override
  public Integer call() {
    out().print(AutoComplete.bash(spec.root().name(), spec.root().commandLine()));
    out().flush();
    return 0;
  }
}
