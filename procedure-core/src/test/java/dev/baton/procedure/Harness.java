package dev.baton.procedure;

import dev.baton.procedure.store.InMemoryProcedureStore;
import dev.baton.procedure.store.ProcedureStore;
import dev.baton.procedure.store.StoreRecord;
import dev.baton.procedure.testing.CrashInjectingStore;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;

/**
 * One test's world: a {@link TestEnv}, an in-memory store behind a crash injector, a wall clock the
 * test can move forward, and executors built on that same store (a new one = a restart).
 */
final class Harness implements AutoCloseable {
  static final Duration AWAIT = Duration.ofSeconds(20);

  final TestEnv env = new TestEnv();
  final InMemoryProcedureStore memory = new InMemoryProcedureStore();
  final CrashInjectingStore store = new CrashInjectingStore(memory);
  final ProcedureRegistry registry;
  private final AtomicLong clockOffset = new AtomicLong();
  private final List<ProcedureExecutor<TestEnv>> started = new ArrayList<>();
  private UnaryOperator<ProcedureExecutor.Builder<TestEnv>> settings = b -> b;
  private ProcedureStore executorStore = store;
  ProcedureExecutor<TestEnv> executor;

  Harness(ProcedureRegistry registry) {
    this.registry = registry;
  }

  /** Settings applied to every executor this harness builds. */
  Harness with(UnaryOperator<ProcedureExecutor.Builder<TestEnv>> settings) {
    this.settings = settings;
    return this;
  }

  /** Puts {@code wrapper} between the executors and the crash-injecting store. */
  Harness wrapStore(UnaryOperator<ProcedureStore> wrapper) {
    this.executorStore = wrapper.apply(store);
    return this;
  }

  /** Wall clock of the executors: real time plus what the test moved it forward. */
  long now() {
    return System.currentTimeMillis() + clockOffset.get();
  }

  void advanceClock(Duration d) {
    clockOffset.addAndGet(d.toMillis());
  }

  /** Awaitility, polling often (steps take microseconds) with a generous upper bound. */
  static ConditionFactory eventually(String what) {
    return Awaitility.await(what)
        .atMost(AWAIT)
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(5));
  }

  /** Builds and starts a new executor on the store (stops the previous one first). */
  ProcedureExecutor<TestEnv> start() throws IOException {
    if (executor != null) {
      executor.stop();
    }
    executor =
        settings
            .apply(ProcedureExecutor.builder(env, executorStore, registry).clock(this::now))
            .build();
    started.add(executor);
    executor.start();
    return executor;
  }

  ProcedureInfo await(long procId) throws TimeoutException, InterruptedException {
    return executor.await(procId, AWAIT);
  }

  /** Awaits the procedure; null if the executor stopped (a simulated crash) before it finished. */
  ProcedureInfo awaitOrCrash(long procId) throws TimeoutException, InterruptedException {
    try {
      return executor.await(procId, AWAIT);
    } catch (IllegalStateException stopped) {
      return null;
    }
  }

  /** The procedure as stored now, decoded (the store is opened if the executor closed it). */
  Procedure<?> stored(long procId) throws IOException {
    memory.start();
    for (StoreRecord r : memory.load().records()) {
      if (r.procId() == procId) {
        return new ProcedureCodec(registry).decode(procId, r.data());
      }
    }
    return null;
  }

  @Override
  public void close() {
    for (ProcedureExecutor<TestEnv> e : started) {
      e.stop();
    }
  }
}
