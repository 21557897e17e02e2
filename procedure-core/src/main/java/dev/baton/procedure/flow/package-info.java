/**
 * Workflows: DAGs and append-only streams of procedures, run by a flow procedure on the executor,
 * with triggers, failure policies and operator resumes. Uses the root package.
 */
package dev.baton.procedure.flow;
