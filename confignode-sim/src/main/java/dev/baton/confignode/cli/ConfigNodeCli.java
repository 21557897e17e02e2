package dev.baton.confignode.cli;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/**
 * The command line of the ConfigNode simulation jar: the commands of API.md ({@link #COMMANDS}),
 * each with {@code --help}. A usage error exits with {@link #EXIT_USAGE}.
 */
public final class ConfigNodeCli {
  /** Exit code for a usage error. */
  public static final int EXIT_USAGE = 2;

  static final List<String> COMMANDS =
      List.of(
          "node",
          "datanode",
          "drill",
          "chaos",
          "bench",
          "submit",
          "get",
          "list",
          "abort",
          "resume");

  private ConfigNodeCli() {}

  /** Runs one command line; returns the process exit code. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
      PrintStream to = args.length == 0 ? err : out; // no command is a usage error: stderr
      to.println("usage: confignode-sim <command> [options]");
      to.println("commands: " + String.join(", ", COMMANDS));
      return args.length == 0 ? EXIT_USAGE : 0;
    }
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    return switch (args[0]) {
      case DataNodeCommand.NAME -> DataNodeCommand.run(rest, out, err);
      case NodeCommand.NAME -> NodeCommand.run(rest, out, err);
      case DrillCommand.NAME -> DrillCommand.run(rest, out, err);
      case ChaosCommand.NAME -> ChaosCommand.run(rest, out, err);
      case BenchCommand.NAME -> BenchCommand.run(rest, out, err);
      case SubmitCommand.NAME -> SubmitCommand.COMMAND.run(rest, out, err);
      case GetCommand.NAME -> GetCommand.COMMAND.run(rest, out, err);
      case ListCommand.NAME -> ListCommand.COMMAND.run(rest, out, err);
      case AbortCommand.NAME -> AbortCommand.COMMAND.run(rest, out, err);
      case ResumeCommand.NAME -> ResumeCommand.COMMAND.run(rest, out, err);
      default -> {
        err.println("unknown command '" + args[0] + "'; commands: " + String.join(", ", COMMANDS));
        yield EXIT_USAGE;
      }
    };
  }
}
