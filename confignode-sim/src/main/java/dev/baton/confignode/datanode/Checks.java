package dev.baton.confignode.datanode;

/**
 * Argument checks shared by the request and state records. A failed check throws {@link
 * IllegalArgumentException} naming the field, which the server turns into a 400 reply.
 */
final class Checks {
  /** Longest database name or step accepted; keeps ledger entries and state files small. */
  static final int MAX_NAME_LENGTH = 256;

  private Checks() {}

  static void context(long term, long procId, String step) {
    nonNegative("term", term);
    nonNegative("procId", procId);
    notBlank("step", step);
  }

  static void nonNegative(String field, long value) {
    if (value < 0) {
      throw new IllegalArgumentException(
          "field '" + field + "' must be zero or positive, got " + value);
    }
  }

  static void notNull(String field, Object value) {
    if (value == null) {
      throw new IllegalArgumentException("field '" + field + "' is required");
    }
  }

  static void notBlank(String field, String value) {
    notNull(field, value);
    if (value.isBlank()) {
      throw new IllegalArgumentException("field '" + field + "' must not be blank");
    }
    if (value.length() > MAX_NAME_LENGTH) {
      throw new IllegalArgumentException(
          "field '"
              + field
              + "' is "
              + value.length()
              + " characters long; the limit is "
              + MAX_NAME_LENGTH);
    }
  }
}
