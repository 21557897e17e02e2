package dev.baton.confignode.auth;

import java.util.Optional;

/**
 * Who may make which request of the admin API. With a token file, every request must carry {@code
 * Authorization: Bearer TOKEN} of a principal whose role allows it: a reader every GET (metrics
 * included), an operator also the actions on procedures and flows, an admin also the fault and
 * membership routes. Without one (a node on loopback started without {@code --tokens}), every
 * request is served as {@link Principal#ANONYMOUS}.
 */
public final class AccessControl {
  /** The scheme of the Authorization header. */
  public static final String BEARER = "Bearer ";

  /** Path prefixes whose changes only an admin may make. */
  private static final String[] ADMIN_PREFIXES = {"/api/faults", "/api/membership"};

  /**
   * The outcome of a check.
   *
   * @param principal who asked, if a valid token was presented (or anonymous, without tokens)
   * @param status 0 if allowed, else 401 or 403
   * @param error the error code of a refusal
   * @param message what is missing, for the client
   */
  public record Decision(Optional<Principal> principal, int status, String error, String message) {
    public boolean allowed() {
      return status == 0;
    }
  }

  /** HTTP's Unauthorized. */
  public static final int UNAUTHORIZED = 401;

  /** HTTP's Forbidden. */
  public static final int FORBIDDEN = 403;

  private final TokenFile tokens;

  private AccessControl(TokenFile tokens) {
    this.tokens = tokens;
  }

  /** Every request needs a token of {@code tokens}. */
  public static AccessControl withTokens(TokenFile tokens) {
    return new AccessControl(tokens);
  }

  /** Every request is served as {@link Principal#ANONYMOUS}: loopback nodes without tokens. */
  public static AccessControl open() {
    return new AccessControl(null);
  }

  public boolean requiresTokens() {
    return tokens != null;
  }

  /** The least role that may make {@code method} on {@code path}. */
  public static Role required(String method, String path) {
    if (method.equals("GET") || method.equals("HEAD")) {
      return Role.READER;
    }
    for (String prefix : ADMIN_PREFIXES) {
      if (path.equals(prefix) || path.startsWith(prefix + "/")) {
        return Role.ADMIN;
      }
    }
    return Role.OPERATOR;
  }

  /** Whether the request may go on, and as whom. */
  public Decision check(String method, String path, String authorization) {
    if (tokens == null) {
      return new Decision(Optional.of(Principal.ANONYMOUS), 0, null, null);
    }
    if (authorization == null
        || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return new Decision(
          Optional.empty(),
          UNAUTHORIZED,
          "unauthenticated",
          "this node needs a token: send 'Authorization: Bearer TOKEN' (the CLI: --token-file"
              + " FILE or BATON_TOKEN)");
    }
    Optional<Principal> who = tokens.authenticate(authorization.substring(BEARER.length()).strip());
    if (who.isEmpty()) {
      return new Decision(
          Optional.empty(),
          UNAUTHORIZED,
          "unauthenticated",
          "the token is not one this node knows");
    }
    Role needed = required(method, path);
    if (!who.get().role().allows(needed)) {
      return new Decision(
          who,
          FORBIDDEN,
          "forbidden",
          "principal '"
              + who.get().name()
              + "' has role "
              + who.get().role().label()
              + "; "
              + method
              + " "
              + path
              + " needs "
              + needed.label());
    }
    return new Decision(who, 0, null, null);
  }
}
