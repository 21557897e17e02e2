package dev.baton.confignode.datanode;

/**
 * What every command carries besides its arguments: the sender's term for fencing, the (procedure
 * id, step) pair that keys the DataNode's idempotency ledger, and the command's place in the order
 * its procedure sent commands.
 *
 * @param term the ConfigNode leader's term; a DataNode rejects terms below the highest it has seen
 * @param procId the procedure on whose behalf the command is sent
 * @param step the step of that procedure, e.g. {@code "CREATE_REGIONS#2"}; a step that sends
 *     several commands to the same DataNode must make the step unique per command (e.g. {@code
 *     "CREATE_REGIONS#2/region-7"}), because a reused key with different arguments is refused
 * @param seq the command's sequence number within its term: a leader numbers its commands in the
 *     order it sends them, so (term, seq) grows along a procedure's life. A DataNode refuses a
 *     command that is older than one of the same procedure it already applied ({@value
 *     DataNodeErrors#SUPERSEDED}): a command the ConfigNode gave up on cannot land after the undo
 *     that followed it. 0 for a sender that does not number its commands (only the term orders them
 *     then).
 * @param observer told when the command is sent and how it ended ({@link CommandObserver#NONE}:
 *     nobody); not part of the command
 */
public record CommandContext(
    long term, long procId, String step, long seq, CommandObserver observer) {
  public CommandContext {
    Checks.context(term, procId, step);
    Checks.nonNegative("seq", seq);
    java.util.Objects.requireNonNull(observer, "observer");
  }

  /** A context nobody observes. */
  public CommandContext(long term, long procId, String step, long seq) {
    this(term, procId, step, seq, CommandObserver.NONE);
  }

  /** A context without a sequence number (seq 0). */
  public CommandContext(long term, long procId, String step) {
    this(term, procId, step, 0);
  }
}
