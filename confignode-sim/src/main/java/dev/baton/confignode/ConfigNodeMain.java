package dev.baton.confignode;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/**
 * Entry point of the ConfigNode simulation jar. The commands of API.md are being built: {@code
 * datanode} runs; every other command says clearly that it is not available yet and exits with
 * {@link #EXIT_UNAVAILABLE}.
 */
public final class ConfigNodeMain {
  /** Exit code for a command that is not available in this build. */
  public static final int EXIT_UNAVAILABLE = 3;

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

  private ConfigNodeMain() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
      PrintStream to = args.length == 0 ? err : out; // no command is a usage error: stderr
      to.println("usage: confignode-sim <command> [options]");
      to.println("commands: " + String.join(", ", COMMANDS));
      return args.length == 0 ? EXIT_USAGE : 0;
    }
    if (!COMMANDS.contains(args[0])) {
      err.println("unknown command '" + args[0] + "'; commands: " + String.join(", ", COMMANDS));
      return EXIT_USAGE;
    }
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    switch (args[0]) {
      case DataNodeCommand.NAME -> {
        return DataNodeCommand.run(rest, out, err);
      }
      case NodeCommand.NAME -> {
        return NodeCommand.run(rest, out, err);
      }
      case DrillCommand.NAME -> {
        return DrillCommand.run(rest, out, err);
      }
      case ChaosCommand.NAME -> {
        return ChaosCommand.run(rest, out, err);
      }
      default -> {}
    }
    err.println("command '" + args[0] + "' is not available in this build yet");
    return EXIT_UNAVAILABLE;
  }
}
