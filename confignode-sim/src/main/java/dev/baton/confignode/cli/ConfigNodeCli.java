package dev.baton.confignode.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.CharBuffer;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The command line of the ConfigNode simulation jar: {@code confignode-sim <command> [options]},
 * one {@link Command} class per command. Every command answers {@code --help} (exit 0, stdout) and
 * {@code --version}; a usage error is a message on stderr that names the flag, and exit {@value
 * #EXIT_USAGE} ({@link UsageErrors}). The attributes of this class's {@code @Command} (help
 * options, synopsis heading, defaults shown, option order) are inherited by every command.
 */
@Command(
    name = "confignode-sim",
    scope = ScopeType.INHERIT,
    mixinStandardHelpOptions = true,
    versionProvider = ProjectVersion.class,
    synopsisHeading = "usage: ",
    synopsisSubcommandLabel = "<command>",
    descriptionHeading = "%n",
    parameterListHeading = "%nArguments:%n",
    optionListHeading = "%nOptions (* required):%n",
    requiredOptionMarker = '*',
    commandListHeading = "%nCommands:%n",
    exitCodeListHeading = "%nExit codes:%n",
    showDefaultValues = true,
    sortOptions = false,
    sortSynopsis = false,
    description = {
      "The ConfigNode simulation: ConfigNode and DataNode processes, drills on local clusters, and"
          + " clients of a running cluster's admin API.",
      "'confignode-sim <command> --help' describes each command."
    },
    exitCodeList = {
      "0:help or version printed",
      "2:usage error: no command, an unknown command or flag, a bad value"
    })
public final class ConfigNodeCli implements Callable<Integer> {
  /** The commands, in the order {@code --help} lists them. */
  static final List<Class<?>> COMMANDS =
      List.of(
          NodeCommand.class,
          DataNodeCommand.class,
          DrillCommand.class,
          ChaosCommand.class,
          BenchCommand.class,
          SubmitCommand.class,
          GetCommand.class,
          ListCommand.class,
          AbortCommand.class,
          ResumeCommand.class,
          WhyCommand.class,
          LocksCommand.class,
          BypassCommand.class,
          ForceFailCommand.class,
          RetryNowCommand.class,
          AuditCommand.class,
          AddConfigNodeCommand.class,
          RemoveConfigNodeCommand.class,
          ReplaceConfigNodeCommand.class,
          RollingRestartCommand.class,
          CertsCommand.class,
          CompletionCommand.class);

  /** Exit code for a usage error. */
  public static final int EXIT_USAGE = 2;

  /** Exit code for a failure no command expected: a bug, printed with its stack trace. */
  static final int EXIT_INTERNAL_ERROR = 1;

  private final PrintStream out;
  private final PrintStream err;

  @Spec CommandSpec spec;

  private ConfigNodeCli(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  /** Runs one command line, printing only to {@code out} and {@code err}; returns the exit code. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    return commandLine(out, err, commandsFor(args)).execute(args);
  }

  /** The command names, in the order {@code --help} lists them. */
  static List<String> commandNames() {
    return List.copyOf(commandLine(System.out, System.err, COMMANDS).getSubcommands().keySet());
  }

  /**
   * The commands a command line needs: the one it names first, alone, when that command works
   * without the others; else all of them (help, no command, a misspelled one, whose usage error
   * suggests the nearest, and {@code completion}, which describes them all). Picocli builds a
   * command's model by reflection over its annotations when the command is added: all of them cost
   * a fresh JVM about 0.25 CPU-seconds, which every ConfigNode process paid at its start.
   */
  static List<Class<?>> commandsFor(String[] args) {
    if (args.length > 0) {
      for (Class<?> c : COMMANDS) {
        if (c != CompletionCommand.class && c.getAnnotation(Command.class).name().equals(args[0])) {
          return List.of(c);
        }
      }
    }
    return COMMANDS;
  }

  static CommandLine commandLine(PrintStream out, PrintStream err, List<Class<?>> commands) {
    CommandLine cli = new CommandLine(new ConfigNodeCli(out, err));
    for (Class<?> c : commands) {
      cli.addSubcommand(c);
    }
    cli.setOut(writer(out));
    cli.setErr(writer(err));
    cli.setParameterExceptionHandler(new UsageErrors());
    cli.setExecutionStrategy(
        parseResult -> {
          Integer help = CommandLine.executeHelpRequest(parseResult);
          if (help != null) {
            return help;
          }
          UsageErrors.check(parseResult);
          return new CommandLine.RunLast().execute(parseResult);
        });
    cli.setExecutionExceptionHandler(
        (e, command, parseResult) -> {
          PrintWriter to = command.getErr();
          to.println(command.getCommandName() + ": internal error: " + e);
          e.printStackTrace(to);
          to.flush();
          return EXIT_INTERNAL_ERROR;
        });
    return cli;
  }

  /** No command: the usage, to stderr, as a usage error. */
  @Override
  public Integer call() {
    CommandLine self = spec.commandLine();
    self.usage(self.getErr());
    self.getErr().flush();
    return EXIT_USAGE;
  }

  PrintStream out() {
    return out;
  }

  PrintStream err() {
    return err;
  }

  /** A writer over {@code stream}, which encodes the characters with its own charset. */
  private static PrintWriter writer(PrintStream stream) {
    return new PrintWriter(
        new Writer() {
          @Override
          public void write(char[] chars, int off, int len) {
            stream.append(CharBuffer.wrap(chars, off, len));
          }

          @Override
          public void flush() {
            stream.flush();
          }

          @Override
          public void close() {
            stream.flush();
          }
        },
        true);
  }
}
