package dev.baton.confignode.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;

/**
 * The answer to an {@link HttpCall}: status, content type and body.
 *
 * @param status the HTTP status
 * @param contentType the body's media type
 * @param body the bytes sent
 */
public record HttpReply(int status, String contentType, byte[] body) {
  /** {@code value} serialized as JSON. */
  public static HttpReply json(int status, Object value) {
    try {
      return new HttpReply(status, JsonExchange.CONTENT_TYPE, Json.STRICT.writeValueAsBytes(value));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("answer is not serializable as JSON: " + e, e);
    }
  }

  /** The JSON error of {@code error}. */
  public static HttpReply error(HttpError error) {
    return json(error.status(), error.reply());
  }

  /** 400: the request could not be read (the client went away, a broken body). */
  public static HttpReply unreadable(IOException e) {
    return json(
        HttpURLConnection.HTTP_BAD_REQUEST,
        new ErrorReply(
            HttpErrors.INVALID_REQUEST, "could not read the request: " + e.getMessage()));
  }

  /** 500 for a bug, with only the reference under which the log has its details. */
  public static HttpReply internal(String reference) {
    return json(
        HttpURLConnection.HTTP_INTERNAL_ERROR,
        new ErrorReply(HttpErrors.INTERNAL, HttpErrors.internalMessage(reference)));
  }

  /** Plain text of {@code contentType}. */
  public static HttpReply text(int status, String contentType, String text) {
    return new HttpReply(status, contentType, text.getBytes(StandardCharsets.UTF_8));
  }
}
