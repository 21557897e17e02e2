package dev.baton.procedure;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.store.ForwardingProcedureStore;
import dev.baton.procedure.store.InMemoryProcedureStore;
import dev.baton.procedure.store.ProcedureStore;
import dev.baton.procedure.store.StoreBatch;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class CompletedProcedureCleanupTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final Duration NEVER = Duration.ofHours(1);
  private static final Duration RETENTION = Duration.ofMinutes(1);

  private final AtomicLong clock = new AtomicLong(System.currentTimeMillis());

  private final InMemoryProcedureStore records = new InMemoryProcedureStore();
  private final RecordingStore store = new RecordingStore(records);
  private ProcedureExecutor<TestEnv> executor;

  /**
   * A minute's retention on a clock the test moves ({@link #pastRetention}); the cleaner runs only
   * when the test calls it.
   */
  private void start() throws IOException {
    start(RETENTION);
  }

  private void start(Duration retention) throws IOException {
    executor =
        ProcedureExecutor.builder(new TestEnv(), store, Steps.registry())
            .coreWorkers(2)
            .completedRetention(retention)
            .cleanerInterval(NEVER)
            .clock(clock::get)
            .build();
    executor.start();
  }

  private void pastRetention() {
    clock.addAndGet(RETENTION.toMillis() + 1);
  }

  @AfterEach
  void stop() {
    if (executor != null) {
      executor.stop();
    }
  }

  private List<Long> runToCompletion(int procedures) throws Exception {
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < procedures; i++) {
      ids.add(executor.submit(new Steps("p" + i)));
    }
    for (long id : ids) {
      assertEquals(ProcedureState.SUCCESS, executor.await(id, WAIT).state());
    }
    // await returns once a procedure reads as finished; it is retired (moved from the live map to
    // the retained ones) just after, on the completion thread, and the cleaner must find it there
    await().atMost(WAIT).until(() -> executor.liveCount() == 0);
    return ids;
  }

  @Test
  void cleanerDeletesExpiredRootsInBatchesNotOneWriteEach() throws Exception {
    start();
    int procedures = ExpiredDeadlines.MAX_DELETES_PER_WRITE + 3;
    List<Long> ids = runToCompletion(procedures);
    assertEquals(procedures, records.size(), "finished roots stay stored until cleaned");

    store.batches.clear();
    executor.cleanCompleted();
    assertEquals(0, store.batches.size(), "nothing is deleted before the retention ends");
    assertEquals(procedures, records.size());

    pastRetention();
    executor.cleanCompleted();

    assertEquals(2, store.batches.size(), "one write per full batch of deletes, then the rest");
    assertEquals(ExpiredDeadlines.MAX_DELETES_PER_WRITE, store.batches.get(0).deleteCount());
    assertEquals(3, store.batches.get(1).deleteCount());
    assertEquals(0, records.size());
    for (long id : ids) {
      assertTrue(executor.getInfo(id).isEmpty(), "procedure " + id + " is forgotten");
    }
  }

  @Test
  void failedCleanerWriteKeepsTheRootsForTheNextRound() throws Exception {
    start();
    List<Long> ids = runToCompletion(3);
    pastRetention();

    store.failWrites = true;
    executor.cleanCompleted();
    for (long id : ids) {
      assertTrue(executor.getInfo(id).isPresent(), "procedure " + id + " is still retained");
    }
    assertEquals(3, records.size());

    store.failWrites = false;
    executor.cleanCompleted();
    for (long id : ids) {
      assertTrue(executor.getInfo(id).isEmpty(), "procedure " + id + " is forgotten");
    }
    assertEquals(0, records.size());
  }

  @Test
  void zeroRetentionDeletesTheTreeInItsFinalWriteAndTheCleanerOnlyForgetsIt() throws Exception {
    start(Duration.ZERO);
    List<Long> ids = runToCompletion(3);
    assertEquals(0, records.size(), "the final writes deleted the finished roots");
    for (long id : ids) {
      assertTrue(
          executor.getInfo(id).isPresent(), "procedure " + id + " is queryable until cleaned");
    }

    store.batches.clear();
    executor.cleanCompleted();
    for (long id : ids) {
      assertTrue(executor.getInfo(id).isPresent(), "procedure " + id + " is kept for the grace");
    }
    clock.addAndGet(ExecutorConfig.ZERO_RETENTION_GRACE.toMillis());
    executor.cleanCompleted();
    assertEquals(0, store.batches.size(), "nothing left in the store for the cleaner to delete");
    for (long id : ids) {
      assertTrue(executor.getInfo(id).isEmpty(), "procedure " + id + " is forgotten");
    }
  }

  /** Passes writes on, remembers the batches, and fails writes on request. */
  private static final class RecordingStore extends ForwardingProcedureStore {
    final List<StoreBatch> batches = new java.util.concurrent.CopyOnWriteArrayList<>();
    volatile boolean failWrites;

    RecordingStore(ProcedureStore delegate) {
      super(delegate);
    }

    @Override
    public void write(StoreBatch batch) throws IOException {
      if (failWrites) {
        throw new IOException("injected write failure");
      }
      delegate.write(batch);
      batches.add(batch);
    }
  }
}
