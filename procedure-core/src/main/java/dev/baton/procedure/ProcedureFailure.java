package dev.baton.procedure;

/**
 * Why a procedure failed, in a form that can be stored and shown to clients. The cause's class is
 * kept by name only, for operators; it is never instantiated from stored bytes.
 *
 * @param source who reported the failure (a procedure type, "executor", "timeout", "abort" ...)
 * @param message the cause's message
 * @param causeType the cause's class name, or empty
 * @param aborted whether the failure comes from an abort (operator or timeout)
 */
public record ProcedureFailure(String source, String message, String causeType, boolean aborted) {

  /** Builds a failure from a throwable. */
  public static ProcedureFailure of(String source, Throwable cause) {
    String message = cause.getMessage() != null ? cause.getMessage() : cause.toString();
    return new ProcedureFailure(source, message, cause.getClass().getName(), false);
  }

  /** A failure caused by an abort request. */
  public static ProcedureFailure aborted(String source, String message) {
    return new ProcedureFailure(source, message, "", true);
  }

  /** One line for clients: {@code source: message}. */
  public String describe() {
    return (aborted ? "aborted by " : "") + source + ": " + message;
  }
}
