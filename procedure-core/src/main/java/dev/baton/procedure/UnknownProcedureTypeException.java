package dev.baton.procedure;

/** A stored or submitted procedure names a type the {@link ProcedureRegistry} does not know. */
public class UnknownProcedureTypeException extends ProcedureCodecException {
  private final String type;

  public UnknownProcedureTypeException(String type) {
    super("unknown procedure type '" + type + "': register it in the ProcedureRegistry");
    this.type = type;
  }

  public String type() {
    return type;
  }
}
