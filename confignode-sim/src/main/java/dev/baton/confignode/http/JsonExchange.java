package dev.baton.confignode.http;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.util.Arrays;
import java.util.stream.Collectors;

/** Reading JSON request bodies with a size limit, and writing JSON answers. */
public final class JsonExchange {
  public static final String CONTENT_TYPE = "application/json";

  /**
   * How much of an oversized body is read and discarded so the client gets the 413 instead of a
   * reset connection; beyond it the connection is simply closed.
   */
  public static final long DRAIN_LIMIT_BYTES = 16L << 20;

  private static final int DRAIN_CHUNK_BYTES = 8192;

  /** Status code 413, which {@link HttpURLConnection} names only under a deprecated alias. */
  public static final int HTTP_PAYLOAD_TOO_LARGE = 413;

  /** Start of Jackson's message for a missing required creator property. */
  private static final String MISSING_PROPERTY = "Missing required creator property";

  /** Start of Jackson's message for content after the value. */
  private static final String TRAILING_TOKEN = "Trailing token";

  private JsonExchange() {}

  /** The request body, at most {@code maxBytes} long. */
  public static byte[] readBody(HttpExchange exchange, int maxBytes) throws IOException, HttpError {
    InputStream in = exchange.getRequestBody();
    byte[] body = in.readNBytes(maxBytes + 1);
    if (body.length > maxBytes) {
      drain(in);
      throw new HttpError(
          HTTP_PAYLOAD_TOO_LARGE,
          HttpErrors.PAYLOAD_TOO_LARGE,
          "request body exceeds the limit of " + maxBytes + " bytes");
    }
    return body;
  }

  /** Binds a JSON body to {@code type}; any problem is a 400 saying what and where. */
  public static <T> T parse(byte[] body, Class<T> type) throws HttpError {
    if (body.length == 0) {
      throw new HttpError(
          HttpURLConnection.HTTP_BAD_REQUEST,
          HttpErrors.INVALID_REQUEST,
          "request body is empty; expected a JSON object");
    }
    T value;
    try {
      value = Json.STRICT.readValue(body, type);
    } catch (StreamReadException e) {
      throw new HttpError(
          HttpURLConnection.HTTP_BAD_REQUEST,
          HttpErrors.MALFORMED_JSON,
          "request body is not valid JSON: " + e.getOriginalMessage());
    } catch (ValueInstantiationException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new HttpError(
          HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.INVALID_REQUEST, cause.getMessage());
    } catch (JsonMappingException e) {
      if (e.getCause() instanceof JsonParseException
          || e.getCause() instanceof StreamConstraintsException) {
        JsonProcessingException unreadable = (JsonProcessingException) e.getCause();
        // a parse error met while binding a field (bad UTF-8 inside a string, nesting beyond the
        // parser's limit): the body is not acceptable JSON, whatever the field
        throw new HttpError(
            HttpURLConnection.HTTP_BAD_REQUEST,
            HttpErrors.MALFORMED_JSON,
            "request body is not valid JSON: " + unreadable.getOriginalMessage());
      }
      throw new HttpError(
          HttpURLConnection.HTTP_BAD_REQUEST,
          isTrailingContent(e) ? HttpErrors.MALFORMED_JSON : HttpErrors.INVALID_REQUEST,
          describe(e));
    } catch (JsonProcessingException e) {
      throw new HttpError(
          HttpURLConnection.HTTP_BAD_REQUEST,
          HttpErrors.MALFORMED_JSON,
          "request body is not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new HttpError(
          HttpURLConnection.HTTP_BAD_REQUEST,
          HttpErrors.MALFORMED_JSON,
          "request body is unreadable: " + e.getMessage());
    }
    if (value == null) {
      throw new HttpError(
          HttpURLConnection.HTTP_BAD_REQUEST,
          HttpErrors.INVALID_REQUEST,
          "request body is null; expected a JSON object");
    }
    return value;
  }

  public static void send(HttpExchange exchange, int status, Object body) throws IOException {
    byte[] bytes = Json.STRICT.writeValueAsBytes(body);
    exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /**
   * Says what was wrong in terms of the request's fields, without Jackson's class names and
   * configuration hints.
   */
  public static String describe(JsonMappingException e) {
    String field =
        e.getPath().stream()
            .map(
                ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
            .collect(Collectors.joining("."));
    if (e instanceof UnrecognizedPropertyException unknown) {
      return "unknown field '"
          + unknown.getPropertyName()
          + "'; known fields: "
          + unknown.getKnownPropertyIds().stream()
              .map(Object::toString)
              .sorted()
              .collect(Collectors.joining(", "));
    }
    if (e instanceof MismatchedInputException mismatch) {
      if (isTrailingContent(e)) {
        return "request body is not valid JSON: it has content after the JSON object";
      }
      String message = String.valueOf(mismatch.getOriginalMessage());
      if (message.startsWith(MISSING_PROPERTY)) {
        return "missing required field '" + field + "'";
      }
      if (field.isEmpty()) {
        return "expected a JSON object";
      }
      Class<?> target = mismatch.getTargetType();
      if (target != null && target.isEnum()) {
        return "field '"
            + field
            + "' must be one of "
            + Arrays.toString(target.getEnumConstants())
            + describeValue(mismatch);
      }
      if (target != null) {
        return "field '" + field + "' must be " + typeName(target) + describeValue(mismatch);
      }
    }
    String what = String.valueOf(e.getOriginalMessage());
    return field.isEmpty() ? what : "field '" + field + "': " + what;
  }

  private static boolean isTrailingContent(JsonMappingException e) {
    return e instanceof MismatchedInputException
        && String.valueOf(e.getOriginalMessage()).startsWith(TRAILING_TOKEN);
  }

  private static String describeValue(MismatchedInputException e) {
    if (e instanceof InvalidFormatException invalid) {
      return ", got '" + invalid.getValue() + "'";
    }
    return "";
  }

  private static String typeName(Class<?> type) {
    if (type == long.class || type == int.class || type == Long.class || type == Integer.class) {
      return "an integer";
    }
    if (type == boolean.class || type == Boolean.class) {
      return "true or false";
    }
    if (type == String.class) {
      return "a string";
    }
    return "a JSON object";
  }

  private static void drain(InputStream in) throws IOException {
    byte[] chunk = new byte[DRAIN_CHUNK_BYTES];
    long drained = 0;
    int n;
    while (drained < DRAIN_LIMIT_BYTES && (n = in.read(chunk)) > 0) {
      drained += n;
    }
  }
}
