package dev.baton.procedure.testing;

import dev.baton.procedure.Procedure;
import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.store.InMemoryProcedureStore;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Checks for procedure authors: a procedure must reach the same outcome however often the executor
 * restarts. {@link #assertRecoversAtEveryStep} runs it once without interruption, then again with a
 * simulated crash at every store update, twice per update: once between the step and its persist
 * (the step runs again after the restart) and once right after the persist (the executor never saw
 * it complete). It fails if the final state, result, failure or what the observer sees of the
 * environment differ from the uninterrupted run: a step that is not idempotent, or a procedure that
 * forgets to persist part of its state, shows up here.
 */
public final class ProcedureTestKit {
  /** How long one run may take before the kit gives up. */
  public static final Duration DEFAULT_RUN_TIMEOUT = Duration.ofSeconds(60);

  /** Upper bound on simulated crashes in one check (a procedure that never ends). */
  public static final int MAX_CRASHES = 10_000;

  private static final Duration LONG_RETENTION = Duration.ofHours(1);

  private ProcedureTestKit() {}

  /** The outcome of a check: the uninterrupted result and how many restarts the chaos run had. */
  public record RecoveryReport(ProcedureInfo expected, ProcedureInfo actual, int restarts) {}

  /** Same as the full form, comparing only the procedure's final state, result and failure. */
  public static <Env> RecoveryReport assertRecoversAtEveryStep(
      ProcedureRegistry registry,
      Supplier<Env> envFactory,
      Supplier<? extends Procedure<Env>> procedureFactory) {
    return assertRecoversAtEveryStep(registry, envFactory, procedureFactory, env -> null);
  }

  /**
   * Runs the check.
   *
   * @param envFactory a fresh environment per run (the uninterrupted and the chaos run each get
   *     one; the chaos run keeps its environment across restarts, like the outside world)
   * @param procedureFactory a fresh instance of the procedure under test per run
   * @param observer what of the environment must end up equal (e.g. a DataNode's region table)
   * @throws AssertionError naming what differed
   */
  public static <Env> RecoveryReport assertRecoversAtEveryStep(
      ProcedureRegistry registry,
      Supplier<Env> envFactory,
      Supplier<? extends Procedure<Env>> procedureFactory,
      Function<Env, ?> observer) {
    Env cleanEnv = envFactory.get();
    ProcedureInfo expected = runUninterrupted(registry, cleanEnv, procedureFactory.get());
    Object expectedWorld = observer.apply(cleanEnv);

    Env chaosEnv = envFactory.get();
    CrashInjectingStore store = new CrashInjectingStore(new InMemoryProcedureStore());
    ChaosRun<Env> run = new ChaosRun<>(registry, chaosEnv, store);
    ProcedureInfo actual = run.runToEnd(procedureFactory.get());
    Object actualWorld = observer.apply(chaosEnv);

    StringBuilder diff = new StringBuilder();
    if (expected.state() != actual.state()) {
      diff.append("state ").append(expected.state()).append(" != ").append(actual.state());
    }
    if (!Arrays.equals(expected.result(), actual.result())) {
      diff.append(diff.isEmpty() ? "" : "; ").append("result differs");
    }
    if ((expected.failure() == null) != (actual.failure() == null)) {
      diff.append(diff.isEmpty() ? "" : "; ")
          .append("failure ")
          .append(expected.failure())
          .append(" != ")
          .append(actual.failure());
    }
    if (!Objects.equals(expectedWorld, actualWorld)) {
      diff.append(diff.isEmpty() ? "" : "; ")
          .append("environment ")
          .append(expectedWorld)
          .append(" != ")
          .append(actualWorld);
    }
    if (!diff.isEmpty()) {
      throw new AssertionError(
          expected.type()
              + " does not recover to the same outcome after "
              + run.restarts()
              + " restarts: "
              + diff
              + ". Steps must be idempotent and all state must be serialized.");
    }
    return new RecoveryReport(expected, actual, run.restarts());
  }

  static <Env> ProcedureExecutor<Env> newExecutor(
      ProcedureRegistry registry, Env env, dev.baton.procedure.store.ProcedureStore store) {
    return ProcedureExecutor.builder(env, store, registry)
        .coreWorkers(1)
        .maxWorkers(1)
        .completedRetention(LONG_RETENTION)
        .cleanerInterval(LONG_RETENTION)
        .build();
  }

  private static <Env> ProcedureInfo runUninterrupted(
      ProcedureRegistry registry, Env env, Procedure<Env> proc) {
    try (ProcedureExecutor<Env> executor =
        newExecutor(registry, env, new InMemoryProcedureStore())) {
      executor.start();
      long id = executor.submit(proc);
      return executor.await(id, DEFAULT_RUN_TIMEOUT);
    } catch (TimeoutException e) {
      throw new AssertionError("uninterrupted run did not finish in " + DEFAULT_RUN_TIMEOUT, e);
    } catch (Exception e) {
      throw new AssertionError("uninterrupted run failed: " + e, e);
    }
  }
}
