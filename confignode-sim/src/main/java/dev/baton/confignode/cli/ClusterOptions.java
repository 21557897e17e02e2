package dev.baton.confignode.cli;

import dev.baton.confignode.client.NodeApiClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
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

  @Option(
      names = "--token-file",
      paramLabel = "FILE",
      description =
          "a file holding the bearer token to send (its first non-blank line); without it, the"
              + " environment variable "
              + TOKEN_ENV
              + " if set")
  Path tokenFile;

  /** The environment variable that holds the token when no {@code --token-file} is given. */
  static final String TOKEN_ENV = "BATON_TOKEN";

  /**
   * The token to send: from {@code --token-file}, else from {@code env}'s {@value #TOKEN_ENV}, else
   * none.
   *
   * @throws IllegalArgumentException naming the flag, if the file cannot be read or holds no token
   */
  Optional<String> token(Function<String, String> env) {
    if (tokenFile == null) {
      String fromEnv = env.apply(TOKEN_ENV);
      return fromEnv == null || fromEnv.isBlank() ? Optional.empty() : Optional.of(fromEnv.strip());
    }
    List<String> lines;
    try {
      lines = Files.readAllLines(tokenFile, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "flag --token-file: cannot read " + tokenFile + ": " + e.getMessage());
    }
    return Optional.of(
        lines.stream()
            .map(String::strip)
            .filter(l -> !l.isEmpty())
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "flag --token-file: " + tokenFile + " holds no token")));
  }

  NodeApiClient client(Function<String, String> env) {
    NodeApiClient api = new NodeApiClient(cluster.addresses(), Duration.ofSeconds(timeoutSeconds));
    Optional<String> token = token(env);
    return token.isPresent() ? api.withToken(token.get()) : api;
  }
}
