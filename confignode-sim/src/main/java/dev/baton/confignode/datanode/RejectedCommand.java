package dev.baton.confignode.datanode;

/**
 * A command refused because its term was below the highest term the DataNode had seen: it came from
 * a deposed ConfigNode leader and was not applied.
 *
 * @param caller the node id of the ConfigNode that sent it (see {@link LedgerEntry#caller()}); null
 *     over plain HTTP
 */
public record RejectedCommand(
    long procId,
    String step,
    long term,
    long highestTerm,
    String command,
    long time,
    String caller) {}
