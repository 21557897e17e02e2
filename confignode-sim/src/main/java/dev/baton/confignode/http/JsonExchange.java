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
import java.io.IOException;
import java.net.HttpURLConnection;
import java.util.Arrays;
import java.util.stream.Collectors;

/** Reading JSON request bodies: the content type they must declare, binding, error messages. */
public final class JsonExchange {
  public static final String CONTENT_TYPE = "application/json";

  /** Status code 413, which {@link HttpURLConnection} names only under a deprecated alias. */
  public static final int HTTP_PAYLOAD_TOO_LARGE = 413;

  /** Status code 415, which {@link HttpURLConnection} has no constant for. */
  public static final int HTTP_UNSUPPORTED_MEDIA_TYPE = 415;

  /** Start of Jackson's message for a missing required creator property. */
  private static final String MISSING_PROPERTY = "Missing required creator property";

  /** Start of Jackson's message for content after the value. */
  private static final String TRAILING_TOKEN = "Trailing token";

  private JsonExchange() {}

  /**
   * Fails with 415 unless the request says its body is JSON ({@code Content-Type:
   * application/json}, parameters such as a charset allowed). A browser can send a cross-site POST
   * without asking the server first only with a form or text type, so a server that demands JSON on
   * every POST cannot be made to act by another site's page.
   */
  public static void requireJson(HttpCall call) throws HttpError {
    String type = call.header("Content-Type").orElse("");
    int semicolon = type.indexOf(';');
    String media = (semicolon < 0 ? type : type.substring(0, semicolon)).strip();
    if (!media.equalsIgnoreCase(CONTENT_TYPE)) {
      throw new HttpError(
          HTTP_UNSUPPORTED_MEDIA_TYPE,
          HttpErrors.UNSUPPORTED_MEDIA_TYPE,
          call.method()
              + " needs 'Content-Type: "
              + CONTENT_TYPE
              + "' (even with an empty body), got "
              + (type.isEmpty() ? "none" : "'" + type + "'"));
    }
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
}
