package dev.baton.confignode.cli;

import dev.baton.confignode.client.NodeApiClient;
import java.time.Duration;
import picocli.CommandLine.Option;

/** The options every client command mixes in ({@code @Mixin}): which nodes to ask, for how long. */
final class ClusterOptions {
  @Option(
      names = "--cluster",
      required = true,
      paramLabel = "HOST:PORT,...",
      converter = HostPorts.Converter.class,
      description = "the ConfigNodes' admin API addresses, tried in turn")
  HostPorts cluster;

  @Bounds(min = 1, max = ClientCommand.MAX_SECONDS)
  @Option(
      names = "--timeout",
      paramLabel = "SECONDS",
      description = "keep trying this long while no node can serve")
  int timeoutSeconds = ClientCommand.DEFAULT_TIMEOUT_SECONDS;

  NodeApiClient client() {
    return new NodeApiClient(cluster.addresses(), Duration.ofSeconds(timeoutSeconds));
  }
}
