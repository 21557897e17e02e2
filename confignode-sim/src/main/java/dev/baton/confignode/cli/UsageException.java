package dev.baton.confignode.cli;

/** A command line that cannot be run as given; the message says what to change. */
final class UsageException extends Exception {
  UsageException(String message) {
    super(message);
  }
}
