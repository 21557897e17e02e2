package dev.baton.confignode.procedures;

import java.util.regex.Pattern;

/** Argument checks of ConfigNode procedures; each failure is a clear IllegalArgumentException. */
public final class Validation {
  /** Database names: letters, digits, '_', '.', '-'; at most this long. */
  public static final int MAX_NAME_LENGTH = 64;

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.\\-]+");

  private Validation() {}

  public static void databaseName(String name) {
    if (name == null || name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
      throw new IllegalArgumentException(
          "database name must be 1.." + MAX_NAME_LENGTH + " characters, got " + name);
    }
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "database name may hold letters, digits, '_', '.' and '-' only: " + name);
    }
  }

  public static void range(String what, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          what + " must be within " + min + ".." + max + ", got " + value);
    }
  }
}
