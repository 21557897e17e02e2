package dev.baton.confignode.datanode;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.io.IOException;
import java.util.Comparator;
import java.util.List;

/** The JSON mappers of the DataNode and its client. */
final class DataNodeJson {
  /**
   * For what the DataNode reads (request bodies, its own files): unknown fields, nulls for numbers,
   * numbers given as strings or fractions, and trailing content are all errors, so a typo in a
   * field name is reported instead of silently ignored.
   */
  static final ObjectMapper STRICT =
      JsonMapper.builder()
          .withCoercionConfig(
              LogicalType.Textual,
              config -> {
                config.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail);
                config.setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
                config.setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
              })
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
          .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
          .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
          .serializationInclusion(JsonInclude.Include.NON_NULL)
          .build();

  /**
   * For what the client reads (answers of a DataNode, possibly a newer one): unknown fields are
   * ignored.
   */
  static final ObjectMapper LENIENT =
      JsonMapper.builder()
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .serializationInclusion(JsonInclude.Include.NON_NULL)
          .build();

  /** Fields of the command context, which are not part of a command's arguments. */
  private static final List<String> CONTEXT_FIELDS = List.of("term", "procId", "step");

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
   * A command's arguments: its body without term, procId and step, as a tree read from JSON text,
   * so that it equals the same arguments read back from a file or an answer (a tree built from a
   * {@code long} field holds a long node; one read from {@code 17} an int node).
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
