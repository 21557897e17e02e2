package dev.baton.confignode.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.http.Json;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * What the client commands ({@code submit}, {@code get}, {@code list}, {@code abort}, {@code
 * resume}) share: the {@code --cluster} and {@code --timeout} flags, a {@link NodeApiClient} that
 * tries the listed nodes in turn, and one mapping of failures to messages and exit codes:
 *
 * <ul>
 *   <li>0: done;
 *   <li>{@value #EXIT_REFUSED}: the cluster answered with an error (unknown id, bad arguments, no
 *       such endpoint), printed with the node's error code and message;
 *   <li>{@value ConfigNodeCli#EXIT_USAGE}: bad flags or arguments (nothing was sent);
 *   <li>{@value #EXIT_NO_NODE}: no listed node could serve the request within {@code --timeout};
 *   <li>{@value #EXIT_WAIT_TIMEOUT}: {@code submit --wait} ran out before the procedure finished;
 *   <li>{@value #EXIT_NOT_SUCCESS}: {@code submit --wait} saw the procedure finish without success.
 * </ul>
 *
 * @param name the command's name
 * @param synopsis its arguments, for the usage line
 * @param flags its own flags, besides {@code --cluster} and {@code --timeout}
 * @param positionals names of its positional arguments, in order
 * @param action what it does
 */
record ClientCommand(
    String name,
    String synopsis,
    List<CommandLineFlags.Flag> flags,
    List<String> positionals,
    Action action) {
  static final int EXIT_REFUSED = 1;
  static final int EXIT_NO_NODE = 4;
  static final int EXIT_WAIT_TIMEOUT = 5;
  static final int EXIT_NOT_SUCCESS = 6;

  static final int DEFAULT_TIMEOUT_SECONDS = 10;
  static final int MAX_SECONDS = 86_400;

  static final CommandLineFlags.Flag CLUSTER =
      new CommandLineFlags.Flag(
          "cluster", "HOST:PORT,...", "the ConfigNodes' admin API addresses, tried in turn", true);
  static final CommandLineFlags.Flag TIMEOUT =
      new CommandLineFlags.Flag(
          "timeout",
          "SECONDS",
          "keep trying this long while no node can serve (default " + DEFAULT_TIMEOUT_SECONDS + ")",
          false);
  static final CommandLineFlags.Flag FORMAT =
      new CommandLineFlags.Flag(
          "format", "json|table", "print JSON (default) or a readable table", false);

  static final String JSON = "json";
  static final String TABLE = "table";

  /** The work of one command, once its flags parsed. */
  @FunctionalInterface
  interface Action {
    /** Runs; returns the exit code. Throws UsageException before sending anything. */
    int run(CommandLineFlags flags, NodeApiClient api, PrintStream out, PrintStream err)
        throws UsageException, IOException, InterruptedException;
  }

  int run(String[] args, PrintStream out, PrintStream err) {
    if (CommandLineFlags.wantsHelp(args)) {
      out.println(usage());
      return 0;
    }
    try {
      CommandLineFlags parsed = CommandLineFlags.parse(name, allFlags(), positionals, args);
      NodeApiClient api =
          new NodeApiClient(
              addresses(parsed.string(CLUSTER.name())),
              Duration.ofSeconds(
                  parsed.intValue(TIMEOUT.name(), DEFAULT_TIMEOUT_SECONDS, 1, MAX_SECONDS)));
      return action.run(parsed, api, out, err);
    } catch (UsageException e) {
      return CommandLineFlags.usageError(name, e, usage(), err);
    } catch (NodeApiClient.ApiException e) {
      if (e.retryable()) {
        err.println(name + ": no ConfigNode could serve the request: " + e.getMessage());
        return EXIT_NO_NODE;
      }
      err.println(name + ": the cluster refused the request: " + e.getMessage());
      return EXIT_REFUSED;
    } catch (IOException e) {
      err.println(name + ": no ConfigNode could serve the request: " + e.getMessage());
      return EXIT_NO_NODE;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println(name + ": interrupted");
      return EXIT_NO_NODE;
    }
  }

  String usage() {
    return "usage: confignode-sim "
        + name
        + (synopsis.isEmpty() ? "" : " " + synopsis)
        + " --cluster HOST:PORT,... [--timeout SECONDS]"
        + System.lineSeparator()
        + CommandLineFlags.describe(allFlags());
  }

  private List<CommandLineFlags.Flag> allFlags() {
    return Stream.concat(flags.stream(), Stream.of(CLUSTER, TIMEOUT)).toList();
  }

  /** {@code HOST:PORT,...} as a list, each checked. */
  static List<String> addresses(String list) throws UsageException {
    List<String> out = new ArrayList<>();
    for (String a : list.split(",")) {
      InetSocketAddress addr = NodeCommand.address(a.trim(), "--" + CLUSTER.name());
      out.add(addr.getHostString() + ":" + addr.getPort());
    }
    return out;
  }

  /** Whether {@code --format} asks for a table; anything but json|table is a usage error. */
  static boolean table(CommandLineFlags flags) throws UsageException {
    String format = flags.string(FORMAT.name(), JSON);
    if (!format.equals(JSON) && !format.equals(TABLE)) {
      throw new UsageException("flag --format must be json or table, got '" + format + "'");
    }
    return format.equals(TABLE);
  }

  /** A procedure id argument: a positive integer. */
  static long procId(String what, String value) throws UsageException {
    try {
      long id = Long.parseLong(value);
      if (id > 0) {
        return id;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new UsageException(what + " must be a positive integer, got '" + value + "'");
  }

  /** Prints JSON indented, one value per call. */
  static void printJson(PrintStream out, JsonNode json) throws JsonProcessingException {
    out.println(Json.LENIENT.writerWithDefaultPrettyPrinter().writeValueAsString(json));
  }
}
