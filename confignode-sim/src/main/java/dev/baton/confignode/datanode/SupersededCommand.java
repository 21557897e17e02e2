package dev.baton.confignode.datanode;

/**
 * A command refused because a later command of the same procedure had already been applied (see
 * {@link CommandContext#seq()}): the ConfigNode had given up on it and moved on, e.g. to the step's
 * undo. Nothing was applied.
 *
 * @param procId the procedure
 * @param step the refused command's step
 * @param term its term
 * @param seq its sequence number in that term
 * @param command its name
 * @param newerStep the step of the procedure's newest applied command
 * @param newerTerm that command's term
 * @param newerSeq that command's sequence number
 * @param time when it was refused, epoch milliseconds
 */
public record SupersededCommand(
    long procId,
    String step,
    long term,
    long seq,
    String command,
    String newerStep,
    long newerTerm,
    long newerSeq,
    long time) {}
