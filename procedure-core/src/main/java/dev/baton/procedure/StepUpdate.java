package dev.baton.procedure;

import java.io.IOException;
import java.util.Collection;
import java.util.List;

/**
 * What the end of a step changes: the procedures to write (and records to delete), atomically, and
 * what follows once that write is durable (children queued, a parent woken, locks released, waiters
 * notified). Built while the procedure is held on its worker; applied by {@link
 * ExecutorContext#apply} (synchronously) or {@link ExecutorContext#applyPipelined}.
 */
record StepUpdate<Env>(
    Collection<Procedure<Env>> upserts, Collection<Procedure<Env>> deletes, AfterWrite then) {

  /** Runs once the update is durable. */
  interface AfterWrite {
    void run() throws IOException;
  }

  /** Writes {@code proc}, then runs {@code then}. */
  static <Env> StepUpdate<Env> of(Procedure<Env> proc, AfterWrite then) {
    return new StepUpdate<>(List.of(proc), List.of(), then);
  }
}
