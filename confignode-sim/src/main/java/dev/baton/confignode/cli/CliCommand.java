package dev.baton.confignode.cli;

import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * What every command of the jar has: the streams it prints to (those given to {@link
 * ConfigNodeCli#run}) and a way to refuse its arguments with a usage error (exit {@value
 * ConfigNodeCli#EXIT_USAGE}).
 */
abstract class CliCommand implements Callable<Integer> {
  @ParentCommand ConfigNodeCli cli;

  @Spec CommandSpec spec;

  PrintStream out() {
    return cli.out();
  }

  PrintStream err() {
    return cli.err();
  }

  /** A usage error of this command: printed with its synopsis, exit {@code 2}. */
  ParameterException usageError(String message) {
    return new ParameterException(spec.commandLine(), message);
  }
}
