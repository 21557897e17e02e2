/**
 * Rolling restarts of a running ConfigNode cluster ({@link
 * dev.baton.confignode.rolling.RollingRestart}): every member restarted one at a time through a
 * {@link dev.baton.confignode.rolling.RestartHook} (an operator's command, {@link
 * dev.baton.confignode.rolling.CommandRestartHook}, or a test's), each awaited until it is back and
 * caught up, the leader last after it handed its leadership over. Talks to the nodes through their
 * admin API only. Uses {@code client}, {@code http} (JSON) and {@code waits}.
 */
package dev.baton.confignode.rolling;
