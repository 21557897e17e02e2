package dev.baton.confignode.admin;

import dev.baton.confignode.auth.Principal;
import dev.baton.confignode.http.HttpCall;
import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.http.HttpErrors;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One request to the admin API, as the {@link AdminRoutes} see it, whatever server carries it: the
 * method, the path split into segments ({@code /api/procedures/7} is {@code ["", "api",
 * "procedures", "7"]}), the query, the body (read with a cap), who asked, and what it acts on for
 * the audit log.
 */
final class AdminRequest {
  private final HttpCall call;
  private final Principal principal;
  private final String[] path;
  private String target;

  AdminRequest(HttpCall call, Principal principal) {
    this.call = call;
    this.principal = principal;
    this.path = call.path().replaceAll("/+$", "").split("/");
  }

  String method() {
    return call.method();
  }

  /** The path's segments; the first is empty (the path starts with {@code /}). */
  String[] path() {
    return path;
  }

  /** The path as sent (decoded). */
  String pathText() {
    return call.path();
  }

  /** Who asked: the principal of the request's token, or the anonymous one without tokens. */
  Principal principal() {
    return principal;
  }

  /** The request's Authorization header, to pass on when forwarding it to another node. */
  Optional<String> authorization() {
    return call.header("Authorization");
  }

  /** The body, at most {@code maxBytes} long (413 beyond). */
  byte[] body(int maxBytes) throws IOException, HttpError {
    return call.body(maxBytes);
  }

  void setResponseHeader(String name, String value) {
    call.setResponseHeader(name, value);
  }

  /** Names what the request acts on (a procedure id, a type), for the audit log. */
  void target(String what) {
    this.target = what;
  }

  /** What the request acts on, if a route named it. */
  Optional<String> target() {
    return Optional.ofNullable(target);
  }

  /** Path segment {@code i} after {@code /api}. */
  String segment(int i) {
    return path[i + 2];
  }

  /** The query parameters, decoded (the last one wins when repeated). */
  Map<String, String> query() {
    Map<String, String> out = new LinkedHashMap<>();
    String q = call.rawQuery();
    if (q == null || q.isEmpty()) {
      return out;
    }
    for (String pair : q.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        out.put(decode(pair.substring(0, eq)), decode(pair.substring(eq + 1)));
      }
    }
    return out;
  }

  private static String decode(String s) {
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return s;
    }
  }

  HttpError notFound() {
    return new HttpError(
        HttpURLConnection.HTTP_NOT_FOUND, HttpErrors.NOT_FOUND, "no such path: " + call.path());
  }
}
