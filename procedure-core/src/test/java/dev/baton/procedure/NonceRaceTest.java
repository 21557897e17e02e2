package dev.baton.procedure;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.store.ForwardingProcedureStore;
import dev.baton.procedure.store.InMemoryProcedureStore;
import dev.baton.procedure.store.ProcedureStore;
import dev.baton.procedure.store.StoreBatch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A repeat of a nonce while its first submission is still being persisted waits for that
 * submission: it gets the first id only once the procedure is queued and visible, and the first's
 * failure if it fails, never an id of a procedure that does not exist.
 */
@Timeout(30)
class NonceRaceTest {
  private static final NonceKey NONCE = new NonceKey(7, 42);
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final GatedStore store = new GatedStore(new InMemoryProcedureStore());
  private ProcedureExecutor<TestEnv> executor;

  @AfterEach
  void stop() {
    store.open.countDown();
    if (executor != null) {
      executor.stop();
    }
  }

  private void start() throws IOException {
    executor =
        ProcedureExecutor.builder(new TestEnv(), store, Steps.registry()).coreWorkers(2).build();
    executor.start();
  }

  /** Submits on a thread of its own; its outcome (an id or an exception) lands in {@code out}. */
  private Thread submitter(String name, AtomicReference<Object> out) {
    Thread t =
        new Thread(
            () -> {
              try {
                out.set(executor.submit(new Steps(name), NONCE));
              } catch (RuntimeException e) {
                out.set(e);
              }
            },
            "submit-" + name);
    t.start();
    return t;
  }

  /** Waits until {@code t} is parked (waiting for the first submission) or has ended. */
  private static void awaitParkedOrDone(Thread t) {
    await()
        .atMost(WAIT)
        .until(
            () ->
                t.getState() == Thread.State.WAITING
                    || t.getState() == Thread.State.TIMED_WAITING
                    || t.getState() == Thread.State.TERMINATED);
  }

  /**
   * Submits "a" with the nonce, its write held at the gate, then "b" with the same nonce; checks
   * that b did not come back with an id nothing can see, opens the gate, and returns both outcomes.
   */
  private Object[] firstHeldThenRepeat() throws Exception {
    start();
    store.gateNextWrite();
    AtomicReference<Object> first = new AtomicReference<>();
    AtomicReference<Object> repeat = new AtomicReference<>();
    Thread a = submitter("a", first);
    assertTrue(store.entered.await(WAIT.toSeconds(), TimeUnit.SECONDS), "first write started");
    Thread b = submitter("b", repeat);
    awaitParkedOrDone(b);
    if (repeat.get() instanceof Long id) {
      assertTrue(
          executor.getInfo(id).isPresent(),
          "the repeat returned id " + id + " while nothing can see that procedure yet");
    }
    store.open.countDown();
    a.join(WAIT.toMillis());
    b.join(WAIT.toMillis());
    return new Object[] {first.get(), repeat.get()};
  }

  @Test
  void aRepeatWaitsUntilTheFirstSubmissionIsQueuedAndGetsItsId() throws Exception {
    Object[] outcomes = firstHeldThenRepeat();
    Object first = outcomes[0];
    Object repeat = outcomes[1];
    assertTrue(first instanceof Long, "first: " + first);
    assertEquals(first, repeat, "the repeat gets the first id");
    assertTrue(executor.getInfo((Long) first).isPresent());
    assertEquals(1, executor.list().size(), "one procedure for the nonce");
  }

  @Test
  void aRepeatGetsTheFirstSubmissionsFailureAndALaterOneStartsAfresh() throws Exception {
    store.failGatedWrite = true;
    Object[] outcomes = firstHeldThenRepeat();
    assertTrue(outcomes[0] instanceof UncheckedIOException, "first: " + outcomes[0]);
    assertTrue(outcomes[1] instanceof UncheckedIOException, "repeat: " + outcomes[1]);

    long later = executor.submit(new Steps("c"), NONCE);
    assertTrue(executor.getInfo(later).isPresent());
    assertNotEquals(0, later);
  }

  /** Passes writes on; the next write after {@link #gateNextWrite} waits for {@link #open}. */
  private static final class GatedStore extends ForwardingProcedureStore {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch open = new CountDownLatch(1);
    private volatile boolean gateNext;
    volatile boolean failGatedWrite;

    GatedStore(ProcedureStore delegate) {
      super(delegate);
    }

    void gateNextWrite() {
      gateNext = true;
    }

    @Override
    public void write(StoreBatch batch) throws IOException {
      if (gateNext) {
        gateNext = false;
        entered.countDown();
        try {
          if (!open.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
            throw new IOException("gate never opened");
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted at the gate", e);
        }
        if (failGatedWrite) {
          throw new IOException("injected failure of the gated write");
        }
      }
      delegate.write(batch);
    }
  }
}
