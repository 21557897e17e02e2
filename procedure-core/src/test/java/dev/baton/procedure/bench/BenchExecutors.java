package dev.baton.procedure.bench;

import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.store.ProcedureStore;
import java.time.Duration;

/** The executor every benchmark run uses: two workers, completed procedures removed at once. */
final class BenchExecutors {
  /** Workers of the executor, core and maximum alike. */
  static final int WORKERS = 2;

  /**
   * How often the cleaner removes completed procedures. With a retention of zero this keeps the
   * store and the retainer small during a run; the cleaner's deletes count as store updates.
   */
  static final Duration CLEANER_INTERVAL = Duration.ofSeconds(1);

  private BenchExecutors() {}

  static ProcedureRegistry registry() {
    return new ProcedureRegistry()
        .register(NoopSteps.TYPE, NoopSteps.class, NoopSteps::new)
        .register(ParkedProcedure.TYPE, ParkedProcedure.class, ParkedProcedure::new);
  }

  static ProcedureExecutor<BenchEnv> build(BenchEnv env, ProcedureStore store) {
    return ProcedureExecutor.builder(env, store, registry())
        .coreWorkers(WORKERS)
        .maxWorkers(WORKERS)
        .completedRetention(Duration.ZERO)
        .cleanerInterval(CLEANER_INTERVAL)
        .build();
  }
}
