package dev.baton.confignode.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;

/** The JSON mappers of the DataNode and its client. */
public final class Json {
  /**
   * For what the DataNode reads (request bodies, its own files): unknown fields, nulls for numbers,
   * numbers given as strings or fractions, and trailing content are all errors, so a typo in a
   * field name is reported instead of silently ignored.
   */
  public static final ObjectMapper STRICT =
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
  public static final ObjectMapper LENIENT =
      JsonMapper.builder()
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .serializationInclusion(JsonInclude.Include.NON_NULL)
          .build();

  private Json() {}
}
