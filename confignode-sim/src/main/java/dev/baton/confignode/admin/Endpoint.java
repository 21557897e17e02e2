package dev.baton.confignode.admin;

import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.http.JsonExchange;
import java.io.IOException;
import java.util.List;

/**
 * One endpoint of the admin API: a method, a path template whose {@code {name}} segments match any
 * one segment ({@code /api/procedures/{id}/abort}), what it does, and the handler that answers it.
 * The {@link RouteTable} routes by these, and the OpenAPI document is made from them, so what is
 * served and what is documented are the same list.
 *
 * @param method the HTTP method
 * @param path the path template
 * @param summary what the endpoint does, one line
 * @param query the query parameters it reads, each {@code name: what}
 * @param jsonBody whether it reads a JSON request body
 * @param contentType the media type of its successful answer
 * @param handler the answer: an {@link dev.baton.confignode.http.HttpReply} as it is, anything else
 *     serialized as JSON; an answer that comes later (a long poll) is a {@link
 *     java.util.concurrent.CompletionStage} of it, failed with an {@link HttpError} for an error
 *     answer, and the request holds no thread meanwhile (an {@link InlineAnswer} for one that is
 *     finished on the thread that completes it)
 */
record Endpoint(
    String method,
    String path,
    String summary,
    List<String> query,
    boolean jsonBody,
    String contentType,
    Handler handler) {

  /** Answers a request the endpoint matched; path parameters are its {@link AdminRequest#path}. */
  @FunctionalInterface
  interface Handler {
    Object answer(AdminRequest request) throws HttpError, IOException, InterruptedException;
  }

  Endpoint {
    query = List.copyOf(query);
  }

  static Endpoint get(String path, String summary, Handler handler) {
    return new Endpoint("GET", path, summary, List.of(), false, JsonExchange.CONTENT_TYPE, handler);
  }

  static Endpoint post(String path, String summary, Handler handler) {
    return new Endpoint("POST", path, summary, List.of(), true, JsonExchange.CONTENT_TYPE, handler);
  }

  static Endpoint delete(String path, String summary, Handler handler) {
    return new Endpoint(
        "DELETE", path, summary, List.of(), false, JsonExchange.CONTENT_TYPE, handler);
  }

  /** This endpoint reading the query parameters {@code params}, each {@code name: what}. */
  Endpoint withQuery(String... params) {
    return new Endpoint(method, path, summary, List.of(params), jsonBody, contentType, handler);
  }

  /** This endpoint answering {@code type} instead of JSON. */
  Endpoint producing(String type) {
    return new Endpoint(method, path, summary, query, jsonBody, type, handler);
  }

  /** The template's segments, split as {@link AdminRequest#path} splits a request's path. */
  String[] segments() {
    return path.split("/");
  }

  /** Whether a template segment is a parameter, {@code {name}}. */
  static boolean isParameter(String segment) {
    return segment.startsWith("{") && segment.endsWith("}");
  }

  /** Whether the request path's segments fit this endpoint's template. */
  boolean matches(String[] requestPath) {
    String[] template = segments();
    if (template.length != requestPath.length) {
      return false;
    }
    for (int i = 0; i < template.length; i++) {
      if (!isParameter(template[i]) && !template[i].equals(requestPath[i])) {
        return false;
      }
    }
    return true;
  }
}
