package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.baton.procedure.store.ForwardingProcedureStore;
import dev.baton.procedure.store.InMemoryProcedureStore;
import dev.baton.procedure.store.ProcedureStore;
import dev.baton.procedure.store.StoreBatch;
import dev.baton.procedure.store.StoreContents;
import dev.baton.procedure.store.StoreRecord;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ProcedureRecoveryOrderTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  @Test
  void runnableProceduresResumeInProcIdOrderEvenIfTheStoreListsThemOtherwise() throws Exception {
    InMemoryProcedureStore records = new InMemoryProcedureStore();
    records.start();
    ProcedureCodec codec = new ProcedureCodec(Steps.registry());
    StoreBatch.Builder batch = StoreBatch.builder();
    for (long id = 1; id <= 3; id++) {
      Steps p = new Steps("p" + id);
      p.setType("Steps");
      p.setProcId(id);
      p.setParent(Procedure.NO_PARENT, id);
      p.transitionTo(ProcedureState.RUNNABLE);
      batch.upsert(new StoreRecord(id, codec.encode(p)));
    }
    records.write(batch.build());
    records.stop();

    TestEnv env = new TestEnv();
    try (ProcedureExecutor<TestEnv> executor =
        ProcedureExecutor.builder(env, new ReversingStore(records), Steps.registry())
            .coreWorkers(1)
            .maxWorkers(1)
            .build()) {
      executor.start();
      for (long id = 1; id <= 3; id++) {
        assertEquals(ProcedureState.SUCCESS, executor.await(id, WAIT).state());
      }
    }
    assertEquals(
        List.of(
            "exec p1:A",
            "exec p1:B",
            "exec p1:C",
            "exec p2:A",
            "exec p2:B",
            "exec p2:C",
            "exec p3:A",
            "exec p3:B",
            "exec p3:C"),
        env.journal());
  }

  /** A store that breaks the order contract of {@link ProcedureStore#load}: newest first. */
  private static final class ReversingStore extends ForwardingProcedureStore {

    ReversingStore(ProcedureStore delegate) {
      super(delegate);
    }

    @Override
    public StoreContents load() throws IOException {
      StoreContents contents = delegate.load();
      List<StoreRecord> reversed = new ArrayList<>(contents.records());
      Collections.reverse(reversed);
      return new StoreContents(reversed, contents.maxProcId());
    }

    @Override
    public void write(StoreBatch batch) throws IOException {
      delegate.write(batch);
    }
  }
}
