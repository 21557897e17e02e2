package dev.baton.procedure;

/**
 * Makes a submission idempotent: a retried submit with the same key returns the first procId, also
 * after a restart, for as long as the procedure is live or retained as completed.
 */
public record NonceKey(long group, long nonce) {}
