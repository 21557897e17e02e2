package dev.baton.procedure.flow;

/**
 * A flow definition, append or operator action was refused; nothing was submitted or changed. The
 * message names what was wrong (the nodes of a cycle, the unknown type, the node that is not
 * PENDING ...).
 */
public class InvalidFlowException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public InvalidFlowException(String message) {
    super(message);
  }
}
