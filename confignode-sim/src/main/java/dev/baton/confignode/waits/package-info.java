/**
 * Every wait and timeout of the module's main code in one place ({@link
 * dev.baton.confignode.waits.ConfigNodeWaits}), and the wait on a process cluster built from them.
 * Uses no other package of the module (only procedure-core's {@link
 * dev.baton.procedure.util.Poll}); every package may use it.
 */
package dev.baton.confignode.waits;
