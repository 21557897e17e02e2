package dev.baton.confignode.datanode;

/** A command whose (procId, step) was already in the ledger: answered again, not applied again. */
public record DuplicateCommand(long procId, String step, long term, String command, long time) {}
