package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.store.InMemoryProcedureStore;
import dev.baton.procedure.store.StoreBatch;
import dev.baton.procedure.store.StoreRecord;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class RecordDecodingTest {
  private static final int THREADS = 3;
  private static final int RECORDS = THREADS * RecordDecoding.MIN_RECORDS_PER_THREAD;
  private static final String TYPE = "Recording";
  private static final long WAIT_SECONDS = 10;

  /** A {@link Steps} that notes which thread read its state. */
  public static final class Recording extends Steps {
    private final Set<String> readers;

    Recording(Set<String> readers) {
      this.readers = readers;
    }

    @Override
    protected void deserializeStateData(DataInputStream in) throws IOException {
      readers.add(Thread.currentThread().getName());
      super.deserializeStateData(in);
    }
  }

  private static List<StoreRecord> records(ProcedureCodec codec, int count) throws IOException {
    List<StoreRecord> records = new ArrayList<>(count);
    for (long id = 1; id <= count; id++) {
      Steps p = new Steps("p" + id);
      p.setType(TYPE);
      p.setProcId(id);
      p.setParent(Procedure.NO_PARENT, id);
      p.transitionTo(ProcedureState.RUNNABLE);
      records.add(new StoreRecord(id, codec.encode(p)));
    }
    return records;
  }

  private static ProcedureCodec codec(Supplier<Recording> factory) {
    return new ProcedureCodec(new ProcedureRegistry().register(TYPE, Recording.class, factory));
  }

  @Test
  void manyRecordsAreDecodedOnSeveralThreadsEachIntoItsOwnPlace() throws Exception {
    Set<String> readers = ConcurrentHashMap.newKeySet();
    ProcedureCodec codec = codec(() -> new Recording(readers));
    List<StoreRecord> records = records(codec, RECORDS);

    RecordDecoding.Result r = RecordDecoding.decode(codec, records, THREADS, "test");

    assertEquals(THREADS, RecordDecoding.threadsFor(RECORDS, THREADS));
    assertEquals(THREADS, readers.size(), "threads that read a state: " + readers);
    for (int i = 0; i < RECORDS; i++) {
      Procedure<?> p = r.procedures()[i];
      assertNotNull(p, "record at " + i);
      assertNull(r.failures()[i]);
      assertEquals(records.get(i).procId(), p.getProcId());
      assertEquals("p" + p.getProcId(), ((Steps) p).name);
      assertEquals(ProcedureState.RUNNABLE, p.getState());
    }
    assertSame(
        r.procedures()[0].getType(),
        r.procedures()[RECORDS - 1].getType(),
        "every decoded procedure shares the registered type name");
  }

  @Test
  void fewRecordsAreDecodedOnTheCallingThreadOnly() throws Exception {
    Set<String> readers = ConcurrentHashMap.newKeySet();
    ProcedureCodec codec = codec(() -> new Recording(readers));
    int few = 2 * RecordDecoding.MIN_RECORDS_PER_THREAD - 1;

    RecordDecoding.decode(codec, records(codec, few), THREADS, "test");

    assertEquals(Set.of(Thread.currentThread().getName()), readers);
  }

  @Test
  void anUnreadableRecordInAHelpersRangeIsReportedAtItsPlaceAndTheRestDecode() throws Exception {
    ProcedureCodec codec = codec(() -> new Recording(ConcurrentHashMap.newKeySet()));
    List<StoreRecord> records = records(codec, RECORDS);
    int bad = RECORDS - 2; // in the last range: decoded by a helper
    records.set(bad, new StoreRecord(records.get(bad).procId(), new byte[] {(byte) 0xff, 1, 2}));

    RecordDecoding.Result r = RecordDecoding.decode(codec, records, THREADS, "test");

    assertNull(r.procedures()[bad]);
    assertNotNull(r.failures()[bad]);
    for (int i = 0; i < RECORDS; i++) {
      if (i != bad) {
        assertNotNull(r.procedures()[i], "record at " + i);
      }
    }
  }

  @Test
  void aFactoryFailingOnAHelperFailsTheDecodeWithItsError() throws Exception {
    Set<String> readers = ConcurrentHashMap.newKeySet();
    ProcedureCodec codec =
        codec(
            () -> {
              if (Thread.currentThread().getName().equals("test-decode-2")) {
                throw new IllegalStateException("factory broke on a helper");
              }
              return new Recording(readers);
            });
    List<StoreRecord> records = records(codec, RECORDS);

    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> RecordDecoding.decode(codec, records, THREADS, "test"));
    assertEquals("factory broke on a helper", e.getMessage());
  }

  @Test
  void anInterruptedCallerStopsItsHelpersAndSaysSo() throws Exception {
    CountDownLatch helperBlocked = new CountDownLatch(1);
    CountDownLatch helperInterrupted = new CountDownLatch(1);
    Set<String> readers = ConcurrentHashMap.newKeySet();
    ProcedureCodec codec =
        codec(
            () -> {
              if (Thread.currentThread().getName().equals("test-decode-2")
                  && helperBlocked.getCount() > 0) {
                helperBlocked.countDown();
                try {
                  new CountDownLatch(1).await(); // until interrupted
                } catch (InterruptedException e) {
                  helperInterrupted.countDown();
                  Thread.currentThread().interrupt();
                  throw new IllegalStateException("decoding interrupted");
                }
              }
              return new Recording(readers);
            });
    List<StoreRecord> records = records(codec, RECORDS);
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    AtomicBoolean stillInterrupted = new AtomicBoolean();
    Thread caller =
        new Thread(
            () -> {
              try {
                RecordDecoding.decode(codec, records, THREADS, "test");
              } catch (Throwable t) {
                thrown.set(t);
              }
              stillInterrupted.set(Thread.currentThread().isInterrupted());
            },
            "caller");
    caller.start();
    assertTrue(helperBlocked.await(WAIT_SECONDS, TimeUnit.SECONDS), "a helper started decoding");

    caller.interrupt();

    caller.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
    assertFalse(caller.isAlive(), "the caller returned");
    assertInstanceOf(InterruptedIOException.class, thrown.get());
    assertTrue(stillInterrupted.get(), "the caller's interrupt flag is kept");
    assertTrue(
        helperInterrupted.await(WAIT_SECONDS, TimeUnit.SECONDS),
        "the blocked helper was interrupted");
  }

  @Test
  void anExecutorRecoversAndRunsEveryProcedureDecodedOnSeveralThreads() throws Exception {
    Set<String> readers = ConcurrentHashMap.newKeySet();
    ProcedureRegistry registry =
        new ProcedureRegistry().register(TYPE, Recording.class, () -> new Recording(readers));
    ProcedureCodec codec = new ProcedureCodec(registry);
    InMemoryProcedureStore store = new InMemoryProcedureStore();
    store.start();
    StoreBatch.Builder batch = StoreBatch.builder();
    for (StoreRecord record : records(codec, RECORDS)) {
      batch.upsert(record);
    }
    store.write(batch.build());
    store.stop();

    try (ProcedureExecutor<TestEnv> executor =
        ProcedureExecutor.builder(new TestEnv(), store, registry)
            .recoveryThreads(THREADS)
            .build()) {
      executor.start();
      assertTrue(readers.size() > 1, "decoded on " + readers);
      for (long id = 1; id <= RECORDS; id++) {
        assertEquals(ProcedureState.SUCCESS, executor.await(id, Duration.ofSeconds(30)).state());
      }
    }
  }
}
