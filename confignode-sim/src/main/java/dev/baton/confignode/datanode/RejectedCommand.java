package dev.baton.confignode.datanode;

/**
 * A command refused because its term was below the highest term the DataNode had seen: it came from
 * a deposed ConfigNode leader and was not applied.
 */
public record RejectedCommand(
    long procId, String step, long term, long highestTerm, String command, long time) {}
