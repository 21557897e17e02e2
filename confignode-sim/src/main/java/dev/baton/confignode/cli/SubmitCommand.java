package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.http.Json;
import java.io.IOException;
import java.security.SecureRandom;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code confignode-sim submit --type T [--args k=v,...|--args-json '{...}'] [--nonce G:N] [--wait
 * SECONDS] --cluster ...}: submits a procedure and prints its id; with {@code --wait}, also its
 * final view once it finished (exit 0 only if it succeeded). Without {@code --nonce} a random one
 * is used, so retrying on another node never submits twice.
 */
@Command(
    name = "submit",
    description = {
      "Submits a procedure and prints its id.",
      "With --wait, also its final view once it finished. Without --nonce a random one is used, so"
          + " a retry on another node never submits twice."
    },
    exitCodeList = {
      ClientCommand.EXIT_DONE_LINE,
      ClientCommand.EXIT_REFUSED_LINE,
      ClientCommand.EXIT_USAGE_LINE,
      ClientCommand.EXIT_NO_NODE_LINE,
      "5:--wait ran out before the procedure finished",
      "6:--wait saw the procedure finish without success"
    })
final class SubmitCommand extends ClientCommand {
  /** Nonce group of submissions without {@code --nonce}; the nonce itself is random. */
  static final long CLI_NONCE_GROUP = 0x5ba7_0c11L;

  private static final SecureRandom RANDOM = new SecureRandom();

  @Option(
      names = "--type",
      required = true,
      paramLabel = "T",
      description = "procedure type, e.g. CreateDatabase")
  String type;

  @Option(
      names = "--args",
      paramLabel = "k=v,...",
      converter = ArgPairs.class,
      description = "arguments; numbers and true/false are typed, the rest are strings")
  ObjectNode args;

  @Option(
      names = "--args-json",
      paramLabel = "JSON",
      converter = ArgsJson.class,
      description = "arguments as a JSON object (instead of --args)")
  ObjectNode argsJson;

  @Option(
      names = "--nonce",
      paramLabel = "G:N",
      converter = Nonce.Converter.class,
      description = "group and nonce: a retried submission gets the same id (default: random)")
  Nonce nonce;

  @Bounds(min = 0, max = MAX_SECONDS)
  @Option(
      names = "--wait",
      paramLabel = "SECONDS",
      description = "wait this long for the procedure to finish")
  Integer waitSeconds;

  @Mixin FormatOption format;

  @Mixin ClusterOptions cluster;

  @Override
  ClusterOptions cluster() {
    return cluster;
  }

  @Override
  int run(NodeApiClient api) throws IOException, InterruptedException {
    if (args != null && argsJson != null) {
      throw usageError("give --args or --args-json, not both");
    }
    JsonNode arguments = args != null ? args : argsJson;
    Nonce n = nonce != null ? nonce : new Nonce(CLI_NONCE_GROUP, RANDOM.nextLong());

    long id = api.retrying(() -> api.submit(type, arguments, n.group(), n.nonce()));
    out().println(id);
    if (waitSeconds == null) {
      return 0;
    }
    return ProcedureWait.await(api, id, waitSeconds, format.table(), spec.name(), out(), err());
  }

  /**
   * {@code --nonce G:N}.
   *
   * @param group the nonce group
   * @param nonce the nonce within it
   */
  record Nonce(long group, long nonce) {
    /** Reads {@code GROUP:NONCE}, two integers. */
    static final class Converter implements ITypeConverter<Nonce> {
      @Override
      public Nonce convert(String value) {
        int colon = value.indexOf(':');
        try {
          if (colon > 0) {
            return new Nonce(
                Long.parseLong(value.substring(0, colon)),
                Long.parseLong(value.substring(colon + 1)));
          }
        } catch (NumberFormatException e) {
          // reported below
        }
        throw new TypeConversionException("must be GROUP:NONCE, two integers, got '" + value + "'");
      }
    }
  }

  /**
   * Reads {@code --args k=v,...} as a JSON object: {@code true}/{@code false} become booleans,
   * integers numbers, anything else a string.
   */
  static final class ArgPairs implements ITypeConverter<ObjectNode> {
    @Override
    public ObjectNode convert(String value) {
      ObjectNode out = Json.LENIENT.createObjectNode();
      for (String pair : value.split(",")) {
        int eq = pair.indexOf('=');
        if (eq <= 0) {
          throw new TypeConversionException("entries must be key=value, got '" + pair + "'");
        }
        String key = pair.substring(0, eq).trim();
        String v = pair.substring(eq + 1).trim();
        if (out.has(key)) {
          throw new TypeConversionException("names '" + key + "' twice");
        }
        if (v.equals("true") || v.equals("false")) {
          out.put(key, Boolean.parseBoolean(v));
        } else if (v.matches("-?\\d{1,18}")) {
          long n = Long.parseLong(v);
          if (n == (int) n) {
            out.put(key, (int) n);
          } else {
            out.put(key, n);
          }
        } else {
          out.put(key, v);
        }
      }
      return out;
    }
  }

  /** Reads {@code --args-json}: a JSON object. */
  static final class ArgsJson implements ITypeConverter<ObjectNode> {
    @Override
    public ObjectNode convert(String value) {
      JsonNode node;
      try {
        node = Json.LENIENT.readTree(value);
      } catch (IOException e) {
        throw new TypeConversionException("is not valid JSON: " + firstLine(e.getMessage()));
      }
      if (node instanceof ObjectNode object) {
        return object;
      }
      throw new TypeConversionException("must be a JSON object, got '" + value + "'");
    }

    private static String firstLine(String s) {
      int nl = s == null ? -1 : s.indexOf('\n');
      return nl < 0 ? String.valueOf(s) : s.substring(0, nl);
    }
  }
}
