package dev.baton.procedure;

import dev.baton.procedure.scheduler.LockCycle;
import java.util.List;
import java.util.function.Consumer;

/**
 * What an executor does with a wait-for cycle its lock manager finds: break it (fail the youngest
 * procedure of the cycle that waits for a lock) or leave it, and whom it tells.
 *
 * @param breakCycles whether cycles are broken
 * @param listeners told of every cycle found, broken or not
 */
record DeadlockPolicy(boolean breakCycles, List<Consumer<LockCycle>> listeners) {
  /**
   * Cycles are broken unless the builder says otherwise: a cycle never resolves by itself, and
   * while it stands its procedures keep their locks, so every later procedure on those resources
   * queues behind it. Failing one procedure rolls its tree back through the ordinary failure path
   * and lets the others go on.
   */
  static final boolean DEFAULT_BREAK_CYCLES = true;

  DeadlockPolicy {
    listeners = List.copyOf(listeners);
  }
}
