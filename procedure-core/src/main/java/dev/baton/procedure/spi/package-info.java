/**
 * What procedure-core makes public only for Baton's own modules (procedure-consensus), not for
 * applications: no compatibility is promised, and an application that runs a {@code
 * ProcedureExecutor} or embeds a {@code ProcedureNode} needs none of it. A module reaches it
 * explicitly through {@code ProcedureExecutor.spi()}. Holds {@link
 * dev.baton.procedure.spi.ExecutorSpi} (taking over a root procedure that another node submitted
 * and the replicated store already holds).
 *
 * <p>Uses {@code dev.baton.procedure.store} and the JDK only; {@code dev.baton.procedure}
 * implements it, so this package never names a type of that one.
 */
package dev.baton.procedure.spi;
