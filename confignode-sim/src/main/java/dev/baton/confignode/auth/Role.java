package dev.baton.confignode.auth;

import java.util.Locale;

/**
 * What a principal may do through the admin API. Each role may do everything the ones before it
 * may: a reader reads, an operator also submits, aborts and resumes, an admin also uses the fault
 * and membership routes.
 */
public enum Role {
  /** Every GET, including {@code /metrics}. */
  READER,
  /** Also submit, abort and resume. */
  OPERATOR,
  /** Also faults and membership. */
  ADMIN;

  /** Whether a principal of this role may do what {@code needed} allows. */
  public boolean allows(Role needed) {
    return compareTo(needed) >= 0;
  }

  /** The role named {@code name} (any case); IllegalArgumentException listing the roles. */
  public static Role parse(String name) {
    try {
      return valueOf(name.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "unknown role '" + name + "'; roles: reader, operator, admin");
    }
  }

  /** The name used in token files and messages. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
