/**
 * The procedure model and the executor: {@link dev.baton.procedure.Procedure} and {@link
 * dev.baton.procedure.StateMachineProcedure} for procedure authors, {@link
 * dev.baton.procedure.ProcedureExecutor} and its parts (workers, root rollback stacks, timeouts,
 * recovery, completed retention) with their decisions in a pure core (StepDecider, UnwindPlanner,
 * RecoveryPlanner: no threads, store or clock), the registry and the record codec, what a live
 * procedure waits on ({@link dev.baton.procedure.BlockedOn}, {@link
 * dev.baton.procedure.WaitChain}), and what the executor reports for metrics ({@link
 * dev.baton.procedure.ProcedureMetrics} events, {@link dev.baton.procedure.ExecutorCensus} gauges).
 * Uses {@code scheduler} and {@code store}, and implements {@code spi} (what procedure-consensus
 * reaches of an executor beyond the public API, through {@code ProcedureExecutor.spi()}).
 */
package dev.baton.procedure;
