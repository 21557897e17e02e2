package dev.baton.procedure;

import java.io.IOException;

/** A procedure could not be encoded or a stored record could not be decoded. */
public class ProcedureCodecException extends IOException {
  public ProcedureCodecException(String message) {
    super(message);
  }

  public ProcedureCodecException(String message, Throwable cause) {
    super(message, cause);
  }
}
