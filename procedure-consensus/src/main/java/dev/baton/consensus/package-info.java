/**
 * Procedures replicated with Apache Ratis: {@link dev.baton.consensus.ProcedureNode} (a Raft peer
 * whose leader runs the executor, rebuilt per term from the replicated table), {@link
 * dev.baton.consensus.ProcedureClient} for other processes, {@link dev.baton.consensus.Membership}
 * (the group's members, added and removed online), and inside, the state machine, the fenced
 * group-committed store, leadership, entry admission and snapshots. Uses procedure-core.
 */
package dev.baton.consensus;
