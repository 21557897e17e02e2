package dev.baton.confignode.datanode;

/**
 * What every command carries besides its arguments: the sender's term for fencing, and the
 * (procedure id, step) pair that keys the DataNode's idempotency ledger.
 *
 * @param term the ConfigNode leader's term; a DataNode rejects terms below the highest it has seen
 * @param procId the procedure on whose behalf the command is sent
 * @param step the step of that procedure, e.g. {@code "CREATE_REGIONS#2"}; a step that sends
 *     several commands to the same DataNode must make the step unique per command (e.g. {@code
 *     "CREATE_REGIONS#2/region-7"}), because a reused key with different arguments is refused
 */
public record CommandContext(long term, long procId, String step) {
  public CommandContext {
    Checks.context(term, procId, step);
  }
}
