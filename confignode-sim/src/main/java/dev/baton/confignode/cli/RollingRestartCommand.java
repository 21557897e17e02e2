package dev.baton.confignode.cli;

import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.rolling.CommandRestartHook;
import dev.baton.confignode.rolling.NodeNotBackException;
import dev.baton.confignode.rolling.NodeRestart;
import dev.baton.confignode.rolling.RollingRestart;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code confignode-sim rolling-restart --restart-command CMD [--node-timeout SECONDS] --cluster
 * ...}: restarts every ConfigNode one at a time ({@link RollingRestart}), each by the operator's
 * command ({@link CommandRestartHook}: this command does not start processes itself, a supervisor
 * does), printing a line per node.
 */
@Command(
    name = "rolling-restart",
    description = {
      "Restarts every ConfigNode one at a time, the leader last.",
      "Each node is restarted by --restart-command, run with /bin/sh -c once per node, its"
          + " placeholders {id}, {address} (admin API host:port), {host}, {port} and {pid} filled"
          + " in (e.g. 'ssh {host} sudo systemctl restart baton@{id}'); it must return once the"
          + " restart is under way. Before the next node, the restarted one must answer from a new"
          + " process and have applied the leader's commit index of the moment it was restarted."
          + " The leader hands its leadership to the member furthest in the log first. --cluster"
          + " must list every member. Needs an admin token."
    },
    exitCodeList = {
      ClientCommand.EXIT_DONE_LINE,
      "1:the cluster refused: a member does not answer or is not listed (nothing restarted), or"
          + " the leader could not hand its leadership over",
      ClientCommand.EXIT_USAGE_LINE,
      ClientCommand.EXIT_NO_NODE_LINE,
      "7:a node's restart command failed, or it was not back and caught up within"
          + " --node-timeout; the nodes after it were not restarted"
    })
final class RollingRestartCommand extends ClientCommand {
  static final int EXIT_NOT_BACK = 7;

  static final int DEFAULT_NODE_TIMEOUT_SECONDS = 120;

  private static final double MILLIS_PER_SECOND = 1000.0;

  @Option(
      names = "--restart-command",
      required = true,
      paramLabel = "CMD",
      description = "restarts one node; placeholders {id} {address} {host} {port} {pid}")
  String restartCommand;

  @Bounds(min = 1, max = MAX_SECONDS)
  @Option(
      names = "--node-timeout",
      paramLabel = "SECONDS",
      description =
          "how long one node may take to hand leadership over, come back and catch up (its"
              + " restart command included)")
  int nodeTimeoutSeconds = DEFAULT_NODE_TIMEOUT_SECONDS;

  @Mixin ClusterOptions cluster;

  @Override
  ClusterOptions cluster() {
    return cluster;
  }

  @Override
  int run(NodeApiClient api) throws IOException, InterruptedException {
    if (restartCommand.isBlank()) {
      throw usageError("flag --restart-command: must not be empty");
    }
    Duration nodeTimeout = Duration.ofSeconds(nodeTimeoutSeconds);
    CommandRestartHook hook =
        new CommandRestartHook(restartCommand, nodeTimeout, line -> out().println("  | " + line));
    List<String> addresses = cluster.cluster.addresses();
    long start = System.nanoTime();
    try {
      List<NodeRestart> done =
          new RollingRestart(api, addresses, hook, nodeTimeout, r -> out().println(r.describe()))
              .run();
      out()
          .printf(
              Locale.ROOT,
              "rolling restart done: %d ConfigNodes in %.1f s%n",
              done.size(),
              TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) / MILLIS_PER_SECOND);
      return 0;
    } catch (IllegalStateException e) {
      err().println(spec.name() + ": " + e.getMessage());
      return EXIT_REFUSED;
    } catch (NodeNotBackException e) {
      err().println(spec.name() + ": stopped at " + e.nodeId() + ": " + e.getMessage());
      return EXIT_NOT_BACK;
    }
  }
}
