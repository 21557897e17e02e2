/**
 * Workflows: DAGs and append-only streams of procedures, run by a flow procedure on the executor,
 * with triggers, failure policies and operator resumes. Uses the root package and {@code store} (a
 * flow record's parts).
 */
package dev.baton.procedure.flow;
