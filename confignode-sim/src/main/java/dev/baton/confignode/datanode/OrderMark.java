package dev.baton.confignode.datanode;

/**
 * The newest command of one procedure a DataNode applied: its place in the procedure's command
 * order, (term, seq), and its step. A command of that procedure that comes before it is refused.
 */
record OrderMark(long procId, long term, long seq, String step) {
  /** Whether a command sent at (term, seq) was sent before this one. */
  boolean isAfter(long otherTerm, long otherSeq) {
    return term > otherTerm || (term == otherTerm && seq > otherSeq);
  }

  static OrderMark of(LedgerEntry e) {
    return new OrderMark(e.procId(), e.term(), e.seq(), e.step());
  }
}
