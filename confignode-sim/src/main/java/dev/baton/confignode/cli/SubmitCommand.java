package dev.baton.confignode.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.http.Json;
import java.io.IOException;
import java.io.PrintStream;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;

/**
 * {@code confignode-sim submit --type T [--args k=v,...|--args-json '{...}'] [--nonce G:N] [--wait
 * SECONDS] --cluster ...}: submits a procedure and prints its id; with {@code --wait}, also its
 * final view once it finished (exit 0 only if it succeeded). Without {@code --nonce} a random one
 * is used, so retrying on another node never submits twice.
 */
final class SubmitCommand {
  static final String NAME = "submit";

  /** Nonce group of submissions without {@code --nonce}; the nonce itself is random. */
  static final long CLI_NONCE_GROUP = 0x5ba7_0c11L;

  /** How often {@code --wait} asks whether the procedure finished. */
  static final Duration WAIT_POLL = Duration.ofMillis(200);

  private static final SecureRandom RANDOM = new SecureRandom();

  static final ClientCommand COMMAND =
      new ClientCommand(
          NAME,
          "--type T [--args k=v,...|--args-json JSON] [--nonce G:N] [--wait SECONDS]",
          List.of(
              new CommandLineFlags.Flag("type", "T", "procedure type, e.g. CreateDatabase", true),
              new CommandLineFlags.Flag(
                  "args", "k=v,...", "arguments; numbers and true/false are typed", false),
              new CommandLineFlags.Flag("args-json", "JSON", "arguments as a JSON object", false),
              new CommandLineFlags.Flag(
                  "nonce", "G:N", "group and nonce: a retried submission gets the same id", false),
              new CommandLineFlags.Flag(
                  "wait", "SECONDS", "wait this long for the procedure to finish", false),
              ClientCommand.FORMAT),
          List.of(),
          SubmitCommand::submit);

  private SubmitCommand() {}

  private static int submit(
      CommandLineFlags flags, NodeApiClient api, PrintStream out, PrintStream err)
      throws UsageException, IOException, InterruptedException {
    String type = flags.string("type");
    JsonNode args = args(flags);
    long[] nonce = nonce(flags.string("nonce"));
    int waitSeconds = flags.intValue("wait", 0, 0, ClientCommand.MAX_SECONDS);
    boolean table = ClientCommand.table(flags);

    long id = api.retrying(() -> api.submit(type, args, nonce[0], nonce[1]));
    out.println(id);
    if (!flags.has("wait")) {
      return 0;
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(waitSeconds).toNanos();
    while (true) {
      JsonNode view = api.get(GetCommand.path(id));
      if (view.path("finished").asBoolean()) {
        GetCommand.print(out, view, table);
        return "SUCCESS".equals(view.path("state").asText()) ? 0 : ClientCommand.EXIT_NOT_SUCCESS;
      }
      if (System.nanoTime() > deadline) {
        err.println(
            NAME
                + ": procedure "
                + id
                + " has not finished after "
                + waitSeconds
                + " s (state "
                + view.path("state").asText()
                + ", step "
                + view.path("step").asText("-")
                + ")");
        return ClientCommand.EXIT_WAIT_TIMEOUT;
      }
      Thread.sleep(WAIT_POLL.toMillis());
    }
  }

  /** The arguments object from {@code --args} or {@code --args-json} (not both), or null. */
  static JsonNode args(CommandLineFlags flags) throws UsageException {
    String pairs = flags.string("args");
    String json = flags.string("args-json");
    if (pairs != null && json != null) {
      throw new UsageException("give --args or --args-json, not both");
    }
    if (json != null) {
      JsonNode node;
      try {
        node = Json.LENIENT.readTree(json);
      } catch (IOException e) {
        throw new UsageException("--args-json is not valid JSON: " + firstLine(e.getMessage()));
      }
      if (node == null || !node.isObject()) {
        throw new UsageException("--args-json must be a JSON object, got '" + json + "'");
      }
      return node;
    }
    if (pairs == null) {
      return null;
    }
    ObjectNode out = Json.LENIENT.createObjectNode();
    for (String pair : pairs.split(",")) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw new UsageException("--args entries must be key=value, got '" + pair + "'");
      }
      String key = pair.substring(0, eq).trim();
      String value = pair.substring(eq + 1).trim();
      if (out.has(key)) {
        throw new UsageException("--args names '" + key + "' twice");
      }
      if (value.equals("true") || value.equals("false")) {
        out.put(key, Boolean.parseBoolean(value));
      } else if (value.matches("-?\\d{1,18}")) {
        long n = Long.parseLong(value);
        if (n == (int) n) {
          out.put(key, (int) n);
        } else {
          out.put(key, n);
        }
      } else {
        out.put(key, value);
      }
    }
    return out;
  }

  /** {@code G:N} as {group, nonce}, or a random nonce of the CLI's group when not given. */
  static long[] nonce(String value) throws UsageException {
    if (value == null) {
      return new long[] {CLI_NONCE_GROUP, RANDOM.nextLong()};
    }
    int colon = value.indexOf(':');
    try {
      if (colon > 0) {
        return new long[] {
          Long.parseLong(value.substring(0, colon)), Long.parseLong(value.substring(colon + 1))
        };
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new UsageException("--nonce must be GROUP:NONCE, two integers, got '" + value + "'");
  }

  private static String firstLine(String s) {
    int nl = s == null ? -1 : s.indexOf('\n');
    return nl < 0 ? String.valueOf(s) : s.substring(0, nl);
  }
}
