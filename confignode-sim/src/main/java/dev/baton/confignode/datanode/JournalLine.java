package dev.baton.confignode.datanode;

/**
 * One line of a DataNode's journal: a change and its sequence number. Sequence numbers grow by one;
 * a snapshot records the last one it contains, so recovery skips lines already in it.
 */
record JournalLine(long seq, Change change) {}
