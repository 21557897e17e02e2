package dev.baton.consensus;

import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.store.ProcedureStore;
import java.time.Duration;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What a {@link ProcedureNode} builds each leader executor from: the registry, the application's
 * environment for the leader context, the executor settings of the node's builder, and how failed
 * executors are relaunched.
 *
 * @param registry the procedure types
 * @param environment makes the environment of an executor, given its leader context
 * @param tuning executor settings, applied in order after the node's defaults
 * @param storeDecorator wraps each executor's store (identity but in tests)
 * @param relaunchBackoff first pause between relaunches of a failed executor (doubling)
 * @param relaunchGiveUp how long without a running executor before leadership is handed away
 * @param unreadyPatience how long an elected node that is not ready may apply nothing before
 *     leadership is handed away
 * @param batchLimits group commit bounds of the executor's store (and of local submissions)
 * @param requestTimeout how long an executor fence may take to be applied
 */
record LeaderExecutorSettings<Env>(
    ProcedureRegistry registry,
    Function<LeaderContext, Env> environment,
    List<Consumer<ProcedureExecutor.Builder<Env>>> tuning,
    BiFunction<LeaderContext, ProcedureStore, ProcedureStore> storeDecorator,
    Duration relaunchBackoff,
    Duration relaunchGiveUp,
    Duration unreadyPatience,
    EntryBatcher.Limits batchLimits,
    Duration requestTimeout) {

  LeaderExecutorSettings {
    tuning = List.copyOf(tuning);
  }

  /** An executor builder on {@code store} for {@code leader}, with every setting applied. */
  ProcedureExecutor.Builder<Env> executorBuilder(LeaderContext leader, ProcedureStore store) {
    ProcedureStore seen = storeDecorator.apply(leader, store);
    Env env = environment.apply(leader);
    ProcedureExecutor.Builder<Env> b =
        ProcedureExecutor.builder(env, seen, registry)
            .term(leader.term())
            .coreWorkers(ProcedureNode.DEFAULT_WORKERS)
            .maxWorkers(ProcedureNode.DEFAULT_WORKERS * ProcedureNode.MAX_WORKERS_FACTOR);
    for (Consumer<ProcedureExecutor.Builder<Env>> t : tuning) {
      t.accept(b);
    }
    return b;
  }
}
