package dev.baton.confignode.admin;

import dev.baton.confignode.auth.AccessControl;
import dev.baton.confignode.auth.AuditLog;
import dev.baton.confignode.auth.Principal;
import dev.baton.confignode.http.AllowedHosts;
import dev.baton.confignode.http.HttpCall;
import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.http.HttpErrors;
import dev.baton.confignode.http.JsonExchange;
import java.net.HttpURLConnection;
import java.util.Optional;

/**
 * What every admin API request passes before a route sees it, and what the audit log hears of it.
 * In order: its {@code Host} must name this node ({@link AllowedHosts}; 403 {@value
 * HttpErrors#WRONG_HOST}), its token must name a principal whose role allows the method and path
 * ({@link AccessControl}; 401 or 403), and a POST must declare a JSON body (415). Each refusal and
 * each request that is not a GET (an operator action) is one audit line.
 */
final class AdminGate {
  /** A refused request: the error, and who asked if a valid token said so. */
  static final class Refused extends Exception {
    private final HttpError error;
    private final Optional<Principal> principal;

    Refused(HttpError error, Optional<Principal> principal) {
      super(error.getMessage(), null, false, false);
      this.error = error;
      this.principal = principal;
    }

    HttpError error() {
      return error;
    }

    Optional<Principal> principal() {
      return principal;
    }
  }

  private final AllowedHosts hosts;
  private final AccessControl access;
  private final AuditLog audit;

  AdminGate(AllowedHosts hosts, AccessControl access, AuditLog audit) {
    this.hosts = hosts;
    this.access = access;
    this.audit = audit;
  }

  /** Who made the request, if it may reach the routes. */
  Principal admit(HttpCall call) throws Refused {
    AccessControl.Decision decision =
        access.check(call.method(), call.path(), call.header("Authorization").orElse(null));
    checkHost(call, decision.principal());
    if (!decision.allowed()) {
      throw new Refused(
          new HttpError(decision.status(), decision.error(), decision.message()),
          decision.principal());
    }
    if (call.method().equals("POST")) {
      try {
        JsonExchange.requireJson(call);
      } catch (HttpError e) {
        throw new Refused(e, decision.principal());
      }
    }
    return decision.principal().orElseThrow();
  }

  /**
   * Admits a request for a static file of the console: its Host must name this node (so another
   * site's page cannot read it through a rebound name) and it must be a read; no token is needed,
   * as the files hold no data.
   */
  void admitStatic(HttpCall call) throws Refused {
    checkHost(call, Optional.empty());
    if (!call.method().equals("GET") && !call.method().equals("HEAD")) {
      throw new Refused(
          new HttpError(
              HttpURLConnection.HTTP_BAD_METHOD,
              HttpErrors.METHOD_NOT_ALLOWED,
              "method " + call.method() + " not allowed here; use GET"),
          Optional.empty());
    }
  }

  private void checkHost(HttpCall call, Optional<Principal> principal) throws Refused {
    String host = call.header("Host").orElse(null);
    if (!hosts.allows(host)) {
      throw new Refused(
          new HttpError(
              HttpURLConnection.HTTP_FORBIDDEN,
              HttpErrors.WRONG_HOST,
              "Host "
                  + (host == null ? "(none)" : "'" + host + "'")
                  + " is not a name of this node; it answers to "
                  + hosts.names()
                  + " (add one with --http-host NAME)"),
          principal);
    }
  }

  /**
   * Records a request in the audit log if it was refused or is an operator action (anything but a
   * read).
   *
   * @param result the status and, for an error, its code (e.g. {@code 403 forbidden})
   */
  void record(
      HttpCall call,
      Optional<Principal> principal,
      Optional<String> target,
      boolean refused,
      String result) {
    if (!refused && (call.method().equals("GET") || call.method().equals("HEAD"))) {
      return;
    }
    audit.record(
        principal.orElse(null),
        call.remoteAddress(),
        call.method() + " " + call.path(),
        target.orElse(null),
        result);
  }
}
