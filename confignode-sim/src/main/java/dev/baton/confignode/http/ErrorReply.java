package dev.baton.confignode.http;

/**
 * The body of every error answer of a DataNode.
 *
 * @param error a stable code from {@link DataNodeErrors}
 * @param message what was wrong, for people
 */
public record ErrorReply(String error, String message) {}
