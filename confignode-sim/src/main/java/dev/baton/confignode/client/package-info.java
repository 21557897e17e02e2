/**
 * The client side of the admin API ({@link dev.baton.confignode.client.NodeApiClient}), which the
 * commands, the drill, chaos and the bench use. Uses {@code http} and {@code waits}.
 */
package dev.baton.confignode.client;
