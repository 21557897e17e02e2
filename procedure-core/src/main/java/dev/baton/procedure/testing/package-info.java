/**
 * The test kit for procedure authors, shipped in the main jar: {@link
 * dev.baton.procedure.testing.ProcedureTestKit} restarts an executor at every persisted step and
 * checks the outcome. Uses the root package and {@code store}.
 */
package dev.baton.procedure.testing;
