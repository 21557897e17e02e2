/**
 * The history checker: a pure, deterministic check of the client operations a run recorded ({@link
 * dev.baton.confignode.history.Operation}: submissions with nonces, reads of a procedure, of the
 * procedure list and of the metadata, each with its real-time interval and outcome) together with
 * what the cluster held at the end ({@link dev.baton.confignode.history.FinalState}: every
 * procedure, the databases and the DataNodes' command ledgers). {@link
 * dev.baton.confignode.history.HistoryChecker#check} returns the {@link
 * dev.baton.confignode.history.HistoryViolation}s, one per broken {@link
 * dev.baton.confignode.history.HistoryRule}, naming the operations involved.
 *
 * <p>No threads, no I/O, no clock reads: times come in with the operations. Uses {@code datanode}
 * (its {@link dev.baton.confignode.datanode.LedgerEntry} records) only.
 */
package dev.baton.confignode.history;
