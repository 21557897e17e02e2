/**
 * Small utilities the Baton modules share, outside the procedure API: {@link
 * dev.baton.procedure.util.Poll}, the one way Baton's main code waits for a condition by polling
 * it. It lives in procedure-core because every other module depends on procedure-core and nothing
 * else; it depends on the JDK only. Keep this package tiny: a utility belongs here only if more
 * than one module needs it.
 */
package dev.baton.procedure.util;
