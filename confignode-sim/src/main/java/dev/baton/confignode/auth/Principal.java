package dev.baton.confignode.auth;

/**
 * Who made a request, as its token says.
 *
 * @param name the principal's name from the token file (never the token)
 * @param role what it may do
 */
public record Principal(String name, Role role) {
  /** The principal of a node that serves without tokens (loopback only). */
  public static final Principal ANONYMOUS = new Principal("anonymous", Role.ADMIN);
}
