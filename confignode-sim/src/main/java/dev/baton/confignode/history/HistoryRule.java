package dev.baton.confignode.history;

/** The rules a history must keep; each violation names one. */
public enum HistoryRule {
  /** Every procedure id an acknowledged submission returned is among the procedures at the end. */
  ACKNOWLEDGED_KEPT("an acknowledged submission is never lost"),
  /** Every acknowledged submission of one nonce returned the same procedure id. */
  ONE_PROCEDURE_PER_NONCE("a nonce names one procedure"),
  /**
   * The root procedures at the end are the acknowledged submissions' plus at most one per nonce
   * whose submissions all ended without a definite answer (possibly applied); a failed submission
   * made none.
   */
  RUNS_ONCE_PER_NONCE("a submission runs once per nonce, a failed one never"),
  /** Acknowledged submissions of different nonces returned different procedure ids. */
  UNIQUE_IDS("procedure ids are unique"),
  /**
   * A submission whose nonce was first sent after a procedure id was known (acknowledged or read)
   * gets a higher id.
   */
  IDS_GROW("procedure ids grow in real time"),
  /**
   * A read that starts after a procedure's submission was acknowledged, or after another read found
   * the procedure, finds it (on any node, leader or follower).
   */
  READ_SEES_WRITE("a read sees every write acknowledged or seen before it started"),
  /**
   * A read that starts after a read saw a procedure terminal sees it in the same terminal state.
   */
  TERMINAL_STAYS_TERMINAL("a terminal procedure stays terminal"),
  /** A read finds a procedure with the type its submission named. */
  READ_SEES_SUBMITTED_TYPE("a procedure has the type it was submitted with"),
  /**
   * A read of the metadata that starts after a read saw a database's CreateDatabase succeed has the
   * database (unless a DeleteDatabase of it was sent before the read ended); after its
   * DeleteDatabase was seen succeeding it does not (unless it had more than one CreateDatabase).
   */
  METADATA_SEES_FINISHED("the metadata shows what finished procedures did"),
  /**
   * No DataNode accepts a command of a term lower than one it accepted before; no procedure has a
   * command of an older term accepted after one of a newer term on any DataNode.
   */
  TERM_FENCING("no command of an old leader's term after one of a new leader's"),
  /** Per DataNode and procedure, commands are applied in the order sent: (term, seq) grows. */
  SEND_ORDER("a DataNode applies a procedure's commands in the order sent");

  private final String meaning;

  HistoryRule(String meaning) {
    this.meaning = meaning;
  }

  /** The rule in a few words. */
  public String meaning() {
    return meaning;
  }
}
