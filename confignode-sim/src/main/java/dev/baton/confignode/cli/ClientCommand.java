package dev.baton.confignode.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.http.Json;
import java.io.IOException;
import java.io.PrintStream;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * What the client commands ({@code submit}, {@code get}, {@code list}, {@code abort}, {@code
 * resume}) share: the {@link ClusterOptions} ({@code --cluster}, {@code --timeout}), a {@link
 * NodeApiClient} that tries the listed nodes in turn, and one mapping of failures to messages and
 * exit codes:
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
 */
abstract class ClientCommand extends CliCommand {
  static final int EXIT_REFUSED = 1;
  static final int EXIT_NO_NODE = 4;
  static final int EXIT_WAIT_TIMEOUT = 5;
  static final int EXIT_NOT_SUCCESS = 6;

  static final int DEFAULT_TIMEOUT_SECONDS = 10;
  static final int MAX_SECONDS = 86_400;

  // The exit codes every client command may end with, as its help lists them.
  static final String EXIT_DONE_LINE = "0:done";
  static final String EXIT_REFUSED_LINE = "1:the cluster refused the request";
  static final String EXIT_USAGE_LINE = "2:bad flags or arguments; nothing was sent";
  static final String EXIT_NO_NODE_LINE = "4:no listed node could serve within --timeout";

  /** The command's {@code @Mixin} of {@link ClusterOptions}, after its own options in the help. */
  abstract ClusterOptions cluster();

  /** Sends the command's requests; throws {@link #usageError} before sending anything. */
  abstract int run(NodeApiClient api) throws IOException, InterruptedException;

  @Override
  public final Integer call() {
    String name = spec.name();
    NodeApiClient api;
    try {
      api = cluster().client(System::getenv);
    } catch (IllegalArgumentException e) {
      throw usageError(e.getMessage());
    }
    try {
      return run(api);
    } catch (NodeApiClient.ApiException e) {
      if (e.retryable()) {
        err().println(name + ": no ConfigNode could serve the request: " + e.getMessage());
        return EXIT_NO_NODE;
      }
      err().println(name + ": the cluster refused the request: " + e.getMessage());
      return EXIT_REFUSED;
    } catch (IOException e) {
      err().println(name + ": no ConfigNode could serve the request: " + e.getMessage());
      return EXIT_NO_NODE;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err().println(name + ": interrupted");
      return EXIT_NO_NODE;
    }
  }

  /** Prints JSON indented, one value per call. */
  static void printJson(PrintStream out, JsonNode json) throws JsonProcessingException {
    out.println(Json.LENIENT.writerWithDefaultPrettyPrinter().writeValueAsString(json));
  }

  /** A procedure id: a positive integer. */
  static final class ProcId implements ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      try {
        long id = Long.parseLong(value);
        if (id > 0) {
          return id;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw new TypeConversionException("must be a positive integer, got '" + value + "'");
    }
  }
}
