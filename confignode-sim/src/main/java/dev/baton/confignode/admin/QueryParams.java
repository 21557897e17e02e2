package dev.baton.confignode.admin;

import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.http.HttpErrors;
import java.net.HttpURLConnection;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;

/** Reading the query parameters of list endpoints, each bad value a 400 naming it. */
final class QueryParams {
  private QueryParams() {}

  /** A whole-number query parameter within {@code min..max}, or {@code absent} if not given. */
  static long number(Map<String, String> query, String name, long absent, long min, long max)
      throws HttpError {
    String value = query.get(name);
    if (value == null) {
      return absent;
    }
    try {
      long n = Long.parseLong(value);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw badRequest(
        "'"
            + name
            + "' must be a whole number from "
            + min
            + " to "
            + max
            + ", got '"
            + value
            + "'");
  }

  /**
   * A point in time as epoch milliseconds: the parameter is epoch milliseconds ({@code
   * 1700000000000}) or an ISO-8601 instant ({@code 2024-05-01T12:00:00Z}); {@code absent} if not
   * given.
   */
  static long instant(Map<String, String> query, String name, long absent) throws HttpError {
    String value = query.get(name);
    if (value == null) {
      return absent;
    }
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      // not epoch milliseconds; an ISO-8601 instant?
    }
    try {
      return Instant.parse(value).toEpochMilli();
    } catch (DateTimeParseException | ArithmeticException e) {
      throw badRequest(
          "'"
              + name
              + "' must be epoch milliseconds or an ISO-8601 instant such as"
              + " 2024-05-01T12:00:00Z, got '"
              + value
              + "'");
    }
  }

  static HttpError badRequest(String message) {
    return new HttpError(HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.INVALID_REQUEST, message);
  }
}
