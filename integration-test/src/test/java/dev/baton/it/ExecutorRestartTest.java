package dev.baton.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.baton.procedure.Procedure;
import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.ProcedureState;
import dev.baton.procedure.store.InMemoryProcedureStore;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The modules wired together: a procedure survives an executor restart on the same store. */
@Timeout(30)
class ExecutorRestartTest {

  /** Counts to a target, one step per count, persisting the count. */
  public static final class Counter extends Procedure<AtomicInteger> {
    int count;
    int target = 5;

    @Override
    protected Procedure<AtomicInteger>[] execute(AtomicInteger env) {
      env.incrementAndGet();
      count++;
      if (count < target) {
        @SuppressWarnings("unchecked")
        Procedure<AtomicInteger>[] again = new Procedure[] {this};
        return again;
      }
      return null;
    }

    @Override
    protected void rollback(AtomicInteger env) {}

    @Override
    protected boolean abort(AtomicInteger env) {
      return false;
    }

    @Override
    protected void serializeStateData(DataOutputStream out) throws IOException {
      out.writeInt(count);
      out.writeInt(target);
    }

    @Override
    protected void deserializeStateData(DataInputStream in) throws IOException {
      count = in.readInt();
      target = in.readInt();
    }
  }

  @Test
  void procedureFinishesAfterRestartOnTheSameStore() throws Exception {
    ProcedureRegistry registry =
        new ProcedureRegistry().register("Counter", Counter.class, Counter::new);
    InMemoryProcedureStore store = new InMemoryProcedureStore();
    AtomicInteger env = new AtomicInteger();
    long id;
    try (ProcedureExecutor<AtomicInteger> first =
        ProcedureExecutor.builder(env, store, registry).coreWorkers(1).build()) {
      first.start();
      id = first.submit(new Counter());
      first.await(id, Duration.ofSeconds(10));
    }
    try (ProcedureExecutor<AtomicInteger> second =
        ProcedureExecutor.builder(env, store, registry).coreWorkers(1).build()) {
      second.start();
      ProcedureInfo info = second.getInfo(id).orElseThrow();
      assertEquals(ProcedureState.SUCCESS, info.state());
      assertEquals(5, env.get());
      long next = second.submit(new Counter());
      assertEquals(id + 1, next, "ids are never reused after a restart");
    }
  }
}
