/**
 * The HTTP admin API of a ConfigNode: the server, one route group per resource ({@code *Routes}),
 * the request and response views and the metrics text. Uses {@code procedures}, {@code meta},
 * {@code faults}, {@code client} (to forward to the leader), {@code http} and {@code waits}; not
 * {@code node} or {@code cli}.
 */
package dev.baton.confignode.admin;
