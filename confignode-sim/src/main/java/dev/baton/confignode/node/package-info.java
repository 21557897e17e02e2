/**
 * The ConfigNode process: a {@link dev.baton.consensus.ProcedureNode} with the ConfigNode
 * procedures, its admin API, the leader's published admin address and the flow gateway. Uses {@code
 * admin}, {@code procedures}, {@code meta}, {@code datanode}, {@code faults} and {@code waits}.
 */
package dev.baton.confignode.node;
