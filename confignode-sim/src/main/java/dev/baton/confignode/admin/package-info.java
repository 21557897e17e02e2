/**
 * The HTTP admin API of a ConfigNode: the server, one route group per resource ({@code *Routes})
 * whose {@link dev.baton.confignode.admin.Endpoint}s fill the route table, the OpenAPI document
 * made from that table, and the request and response views. Uses {@code procedures}, {@code meta},
 * {@code faults}, {@code metrics}, {@code client} (to forward to the leader), {@code http} and
 * {@code waits}; not {@code node} or {@code cli}.
 */
package dev.baton.confignode.admin;
