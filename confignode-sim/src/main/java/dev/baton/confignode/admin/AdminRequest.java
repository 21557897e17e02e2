package dev.baton.confignode.admin;

import com.sun.net.httpserver.HttpExchange;
import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.http.HttpErrors;
import java.net.HttpURLConnection;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One request to the admin API, as the {@link AdminRoutes} see it: the method, the path split into
 * segments ({@code /api/procedures/7} is {@code ["", "api", "procedures", "7"]}), the query and the
 * exchange for the body.
 */
record AdminRequest(HttpExchange exchange, String method, URI uri, String[] path) {

  static AdminRequest of(HttpExchange exchange) {
    URI uri = exchange.getRequestURI();
    return new AdminRequest(
        exchange, exchange.getRequestMethod(), uri, uri.getPath().replaceAll("/+$", "").split("/"));
  }

  /** Whether the path is {@code /api/<segments...>} exactly. */
  boolean isApi(String... segments) {
    if (path.length != segments.length + 2 || !path[1].equals("api")) {
      return false;
    }
    for (int i = 0; i < segments.length; i++) {
      if (segments[i] != null && !segments[i].equals(path[i + 2])) {
        return false;
      }
    }
    return true;
  }

  /** Path segment {@code i} after {@code /api}. */
  String segment(int i) {
    return path[i + 2];
  }

  /** Fails with 405 unless the method is {@code allowed}. */
  void requireMethod(String allowed) throws HttpError {
    if (!method.equals(allowed)) {
      throw new HttpError(
          HttpURLConnection.HTTP_BAD_METHOD,
          HttpErrors.METHOD_NOT_ALLOWED,
          "method " + method + " not allowed here; use " + allowed);
    }
  }

  /** The query parameters (the last one wins when repeated). */
  Map<String, String> query() {
    Map<String, String> out = new LinkedHashMap<>();
    String q = uri.getQuery();
    if (q == null || q.isEmpty()) {
      return out;
    }
    for (String pair : q.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        out.put(pair.substring(0, eq), pair.substring(eq + 1));
      }
    }
    return out;
  }

  HttpError notFound() {
    return new HttpError(
        HttpURLConnection.HTTP_NOT_FOUND, HttpErrors.NOT_FOUND, "no such path: " + uri.getPath());
  }
}
