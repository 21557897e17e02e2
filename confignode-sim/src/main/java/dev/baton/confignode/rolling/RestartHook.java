package dev.baton.confignode.rolling;

import java.io.IOException;

/**
 * Restarts one ConfigNode's process, which the caller may not have started: a supervisor's restart
 * (systemd, a container runtime) asked by an operator's command ({@link CommandRestartHook}), or a
 * test cluster's own. It returns once the restart is under way (the old process stopping or gone);
 * the rolling restart then waits until a new process answers.
 */
@FunctionalInterface
public interface RestartHook {
  /**
   * Restarts {@code node}.
   *
   * @throws IOException if the restart could not be asked for (the command failed), saying why
   */
  void restart(NodeProcess node) throws IOException, InterruptedException;
}
