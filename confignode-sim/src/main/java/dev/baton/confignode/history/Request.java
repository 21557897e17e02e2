package dev.baton.confignode.history;

import java.util.Objects;

/**
 * What a client operation asked; built by the factories, one per {@link OperationKind}.
 *
 * @param kind what kind of operation
 * @param nonce a submission's nonce (0 for reads)
 * @param type a submission's procedure type (null for reads)
 * @param database the database a {@code CreateDatabase} or {@code DeleteDatabase} names, else null
 * @param procId the procedure a {@link OperationKind#READ_PROCEDURE} asks for, else 0
 */
public record Request(OperationKind kind, long nonce, String type, String database, long procId) {
  public static final String CREATE_DATABASE = "CreateDatabase";
  public static final String DELETE_DATABASE = "DeleteDatabase";

  public Request {
    Objects.requireNonNull(kind, "kind");
    if (kind == OperationKind.SUBMIT && type == null) {
      throw new IllegalArgumentException("a submission needs a procedure type");
    }
  }

  /**
   * A submission with a nonce; {@code database} is the name a database procedure acts on, or null.
   */
  public static Request submit(long nonce, String type, String database) {
    return new Request(OperationKind.SUBMIT, nonce, type, database, 0);
  }

  public static Request readProcedure(long procId) {
    return new Request(OperationKind.READ_PROCEDURE, 0, null, null, procId);
  }

  public static Request readList() {
    return new Request(OperationKind.READ_LIST, 0, null, null, 0);
  }

  public static Request readMetadata() {
    return new Request(OperationKind.READ_METADATA, 0, null, null, 0);
  }

  public boolean isSubmit() {
    return kind == OperationKind.SUBMIT;
  }

  @Override
  public String toString() {
    return switch (kind) {
      case SUBMIT ->
          "submit " + type + (database != null ? " " + database : "") + " with nonce " + nonce;
      case READ_PROCEDURE -> "read of procedure " + procId;
      case READ_LIST -> "read of the procedure list";
      case READ_METADATA -> "read of the metadata";
    };
  }
}
