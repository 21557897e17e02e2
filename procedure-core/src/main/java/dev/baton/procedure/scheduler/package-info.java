/**
 * Which procedure runs next and what it may hold: run queues ({@link
 * dev.baton.procedure.scheduler.FifoScheduler}, {@link
 * dev.baton.procedure.scheduler.FairScheduler}), resource locks ({@link
 * dev.baton.procedure.scheduler.LockManager}) with their wait-for graph and its cycles ({@link
 * dev.baton.procedure.scheduler.LockCycle}), and per-type limits. Knows a procedure only as a
 * {@link dev.baton.procedure.scheduler.Schedulable}; uses no other package of the module.
 */
package dev.baton.procedure.scheduler;
