package dev.baton.confignode.datanode;

import static dev.baton.confignode.http.Json.STRICT;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Comparator;
import java.util.List;

/** How the DataNode compares command arguments (its idempotency ledger). */
final class DataNodeJson {
  /** Fields of the command context, which are not part of a command's arguments. */
  private static final List<String> CONTEXT_FIELDS = List.of("term", "procId", "step", "seq");

  /** Integral numbers compare by value, whatever node type holds them (int or long). */
  private static final Comparator<JsonNode> BY_VALUE =
      (a, b) -> {
        if (a.isIntegralNumber() && b.isIntegralNumber()) {
          return a.bigIntegerValue().compareTo(b.bigIntegerValue());
        }
        return a.equals(b) ? 0 : 1;
      };

  private DataNodeJson() {}

  /**
   * A command's arguments: its body without term, procId, step and seq, as a tree read from JSON
   * text, so that it equals the same arguments read back from a file or an answer (a tree built
   * from a {@code long} field holds a long node; one read from {@code 17} an int node).
   */
  static JsonNode argsOf(DataNodeRequest request) {
    ObjectNode tree = STRICT.valueToTree(request);
    tree.remove(CONTEXT_FIELDS);
    try {
      return STRICT.readTree(STRICT.writeValueAsBytes(tree));
    } catch (IOException e) {
      throw new IllegalStateException("cannot re-read the arguments " + tree, e);
    }
  }

  /** Whether two argument trees are the same command arguments. */
  static boolean sameArgs(JsonNode a, JsonNode b) {
    return a.equals(BY_VALUE, b);
  }
}
