package dev.baton.confignode.datanode;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One applied command in the idempotency ledger, keyed by {@code (procId, step)}.
 *
 * @param seq the command's sequence number within its term ({@link CommandContext#seq()})
 * @param args the command's arguments as received, without term, procId and step; a later command
 *     with the same key must carry equal arguments
 * @param reply the answer given, returned again to a duplicate
 * @param time when it was applied, epoch milliseconds
 * @param caller the node id of the ConfigNode that sent it, as its certificate names it; null over
 *     plain HTTP, where callers are not known
 */
public record LedgerEntry(
    long procId,
    String step,
    long term,
    long seq,
    String command,
    JsonNode args,
    DataNodeReply reply,
    long time,
    String caller) {}
