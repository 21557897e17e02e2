package dev.baton.confignode.admin;

import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.http.HttpErrors;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Every endpoint of the admin API, in the order of registration: a request goes to the first
 * endpoint whose template and method match; a path some endpoint has with another method is a 405
 * naming the allowed methods; any other path a 404.
 */
final class RouteTable {
  private final List<Endpoint> endpoints = new ArrayList<>();

  /** Adds {@code group}'s endpoints after those already there. */
  void add(AdminRoutes group) {
    for (Endpoint e : group.endpoints()) {
      for (Endpoint known : endpoints) {
        if (known.method().equals(e.method()) && known.path().equals(e.path())) {
          throw new IllegalArgumentException("endpoint " + e.method() + " " + e.path() + " twice");
        }
      }
      endpoints.add(e);
    }
  }

  /** The endpoints, in routing order. */
  List<Endpoint> endpoints() {
    return List.copyOf(endpoints);
  }

  /** The answer of the endpoint that matches {@code req}. */
  Object route(AdminRequest req) throws HttpError, IOException, InterruptedException {
    Set<String> allowed = new LinkedHashSet<>();
    for (Endpoint e : endpoints) {
      if (e.matches(req.path())) {
        if (e.method().equals(req.method())) {
          return e.handler().answer(req);
        }
        allowed.add(e.method());
      }
    }
    if (allowed.isEmpty()) {
      throw req.notFound();
    }
    throw new HttpError(
        HttpURLConnection.HTTP_BAD_METHOD,
        HttpErrors.METHOD_NOT_ALLOWED,
        "method " + req.method() + " not allowed here; use " + either(List.copyOf(allowed)));
  }

  /** "GET", "GET or POST", "GET, POST or DELETE". */
  private static String either(List<String> methods) {
    if (methods.size() == 1) {
      return methods.get(0);
    }
    return String.join(", ", methods.subList(0, methods.size() - 1))
        + " or "
        + methods.get(methods.size() - 1);
  }
}
