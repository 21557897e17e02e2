package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.store.CorruptStoreException;
import dev.baton.procedure.store.FileProcedureStore;
import dev.baton.procedure.testing.CrashInjectingStore;
import dev.baton.procedure.testing.CrashInjectingStore.Mode;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Executor restarts on a {@link FileProcedureStore}: the first executor stops at a chosen store
 * write (a {@link CrashInjectingStore} makes it fail-stop), and a new executor on a new store
 * instance over the same directory carries on from what is on disk.
 *
 * <p>One worker, so the journal is in execution order and, after a crash, at most the step that was
 * in flight when the executor stopped can run again.
 */
@Timeout(60)
class FileStoreRestartTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final long T0 = 1_000_000;

  @TempDir Path dir;
  private final TestEnv env = new TestEnv();
  private final AtomicLong clock = new AtomicLong(T0);
  private final List<ProcedureExecutor<TestEnv>> executors = new ArrayList<>();

  @AfterEach
  void stopAll() {
    executors.forEach(ProcedureExecutor::stop);
  }

  private ProcedureRegistry registry() {
    return new ProcedureRegistry()
        .register("Steps", Steps.class, Steps::new)
        .register("WaitingStep", WaitingStep.class, () -> new WaitingStep(clock::get));
  }

  private FileProcedureStore newStore() {
    return new FileProcedureStore(dir, FileProcedureStore.Config.defaults());
  }

  private ProcedureExecutor<TestEnv> start(
      dev.baton.procedure.store.ProcedureStore store, ProcedureRegistry registry)
      throws IOException {
    return start(store, registry, 1);
  }

  private ProcedureExecutor<TestEnv> start(
      dev.baton.procedure.store.ProcedureStore store, ProcedureRegistry registry, int workers)
      throws IOException {
    ProcedureExecutor<TestEnv> executor =
        ProcedureExecutor.builder(env, store, registry)
            .coreWorkers(workers)
            .maxWorkers(workers)
            .clock(clock::get)
            .build();
    executors.add(executor);
    executor.start();
    return executor;
  }

  /** Waits until the armed crash stopped the executor; returns the journal as of the stop. */
  private List<String> awaitCrash(ProcedureExecutor<TestEnv> executor, CrashInjectingStore store) {
    Awaitility.await().atMost(WAIT).until(() -> executor.failure().isPresent());
    executor.stop(); // returns once the fail-stop finished: the store is closed
    assertInstanceOf(
        CrashInjectingStore.SimulatedCrashException.class, executor.failure().orElseThrow());
    assertFalse(store.isArmed());
    assertFalse(store.isRunning());
    return env.journal();
  }

  /**
   * Steps persisted before the crash never run again: after the stop, only the last journaled step
   * (the one that may have been in flight, unpersisted) may appear a second time.
   */
  private static void assertNoPersistedStepRepeats(List<String> atStop, List<String> all) {
    assertEquals(atStop, all.subList(0, atStop.size()), "journal rewritten");
    List<String> after = all.subList(atStop.size(), all.size());
    for (int i = 0; i < atStop.size() - 1; i++) {
      String event = atStop.get(i);
      assertFalse(after.contains(event), event + " ran again after the restart: " + all);
    }
    if (!atStop.isEmpty()) {
      String last = atStop.get(atStop.size() - 1);
      assertTrue(Collections.frequency(after, last) <= 1, last + " ran twice more: " + all);
    }
  }

  @Test
  void restartMidProcedureContinuesAfterTheLastPersistedStep() throws Exception {
    CrashInjectingStore first = new CrashInjectingStore(newStore());
    ProcedureExecutor<TestEnv> executor = start(first, registry());
    first.arm(Mode.AFTER_PERSIST, 2); // submit and A pass; B's outcome is durable, then the crash
    long id = executor.submit(new Steps("p"));
    List<String> atCrash = awaitCrash(executor, first);
    assertEquals(List.of("exec p:A", "exec p:B"), atCrash);

    ProcedureExecutor<TestEnv> restarted = start(newStore(), registry());
    ProcedureInfo info = restarted.await(id, WAIT);
    assertEquals(ProcedureState.SUCCESS, info.state());
    assertEquals("done p", new String(info.result(), java.nio.charset.StandardCharsets.UTF_8));
    assertEquals(List.of("exec p:A", "exec p:B", "exec p:C"), env.journal());
    // ids are never reused across the restart
    long next = restarted.submit(new Steps("q"));
    assertTrue(next > id, next + " <= " + id);
    assertEquals(ProcedureState.SUCCESS, restarted.await(next, WAIT).state());
  }

  @Test
  void aStepWhoseOutcomeWasNotPersistedRunsAgainAndOnlyThatOne() throws Exception {
    CrashInjectingStore first = new CrashInjectingStore(newStore());
    ProcedureExecutor<TestEnv> executor = start(first, registry());
    first.arm(Mode.BEFORE_PERSIST, 2); // B runs, its outcome is lost
    long id = executor.submit(new Steps("p"));
    assertEquals(List.of("exec p:A", "exec p:B"), awaitCrash(executor, first));

    ProcedureExecutor<TestEnv> restarted = start(newStore(), registry());
    assertEquals(ProcedureState.SUCCESS, restarted.await(id, WAIT).state());
    assertEquals(List.of("exec p:A", "exec p:B", "exec p:B", "exec p:C"), env.journal());
  }

  /**
   * C fails; writes are: 1 submit, 2 A, 3 B, 4 FAILED, 5 rollback C, 6 rollback B, 7 rollback A.
   * The crash falls on write {@code crashWrite}; before the persist, that rollback step runs once
   * more after the restart; after it, no rollback step repeats.
   */
  @ParameterizedTest(name = "{1} at write {0}")
  @CsvSource({
    "5, AFTER_PERSIST, C",
    "5, BEFORE_PERSIST, C",
    "6, AFTER_PERSIST, B",
    "6, BEFORE_PERSIST, B",
    "7, AFTER_PERSIST, A",
    "7, BEFORE_PERSIST, A"
  })
  void restartMidRollbackContinuesTheRollbackInReverseOrder(
      int crashWrite, Mode mode, String crashedRollback) throws Exception {
    env.failNext("p:C", 1);
    CrashInjectingStore first = new CrashInjectingStore(newStore());
    ProcedureExecutor<TestEnv> executor = start(first, registry());
    first.arm(mode, crashWrite - 1);
    long id = executor.submit(new Steps("p"));
    List<String> atCrash = awaitCrash(executor, first);
    List<String> rollbacks = List.of("rollback p:C", "rollback p:B", "rollback p:A");
    int done = rollbacks.indexOf("rollback p:" + crashedRollback) + 1;
    List<String> expectedAtCrash = new ArrayList<>(List.of("exec p:A", "exec p:B", "exec p:C"));
    expectedAtCrash.addAll(rollbacks.subList(0, done));
    assertEquals(expectedAtCrash, atCrash, "the crash did not fall mid-rollback");

    ProcedureExecutor<TestEnv> restarted = start(newStore(), registry());
    ProcedureInfo info = restarted.await(id, WAIT);
    assertEquals(ProcedureState.ROLLEDBACK, info.state());
    assertTrue(info.failure().contains("injected failure at p:C"), info.failure());
    List<String> expected = new ArrayList<>(expectedAtCrash);
    if (mode == Mode.BEFORE_PERSIST) {
      expected.add("rollback p:" + crashedRollback); // undone, but not recorded as undone
    }
    expected.addAll(rollbacks.subList(done, rollbacks.size()));
    assertEquals(expected, env.journal());
  }

  @Test
  void parentWaitingOnChildrenResumesAfterTheChildrenFinishOnTheRestartedExecutor()
      throws Exception {
    CrashInjectingStore first = new CrashInjectingStore(newStore());
    ProcedureExecutor<TestEnv> executor = start(first, registry());
    // writes: 1 submit, 2 p:A, 3 p:B with the children; the crash follows that write
    first.arm(Mode.AFTER_PERSIST, 2);
    long id = executor.submit(new Steps("p").withChildren(2));
    assertEquals(List.of("exec p:A", "exec p:B"), awaitCrash(executor, first));

    ProcedureExecutor<TestEnv> restarted = start(newStore(), registry());
    List<ProcedureInfo> recovered = restarted.list();
    assertEquals(3, recovered.size(), "parent and two children: " + recovered);
    assertEquals(ProcedureState.SUCCESS, restarted.await(id, WAIT).state());
    assertChildrenThenParent(env.journal(), 2);
    assertNoPersistedStepRepeats(List.of("exec p:A", "exec p:B"), env.journal());
  }

  @Test
  void restartWithSomeChildrenDoneAndOthersNotStartedFinishesTheTree() throws Exception {
    CrashInjectingStore first = new CrashInjectingStore(newStore());
    ProcedureExecutor<TestEnv> executor = start(first, registry());
    // writes: 1 submit, 2 p:A, 3 p:B + children, 4-12 the children's nine steps in whatever order
    // the workers interleave them, 13 p:C. Seven of the children's steps cannot all be A or B, so
    // at the crash (write 10) some child has run C, and p has not.
    first.arm(Mode.AFTER_PERSIST, 9);
    long id = executor.submit(new Steps("p").withChildren(3));
    List<String> atCrash = awaitCrash(executor, first);
    assertTrue(
        atCrash.stream().filter(e -> e.matches("exec p\\.\\d:C")).count() >= 1,
        "no child had finished at the crash: " + atCrash);
    assertFalse(atCrash.contains("exec p:C"), "the tree finished before the crash: " + atCrash);

    ProcedureExecutor<TestEnv> restarted = start(newStore(), registry());
    assertEquals(ProcedureState.SUCCESS, restarted.await(id, WAIT).state());
    assertNoPersistedStepRepeats(atCrash, env.journal());
    assertChildrenThenParent(env.journal(), 3);
  }

  /** Every child ran A, B, C; the parent ran A and B once before them and C once after them. */
  private static void assertChildrenThenParent(List<String> journal, int children) {
    for (String state : List.of("A", "B", "C")) {
      assertEquals(1, Collections.frequency(journal, "exec p:" + state), journal.toString());
    }
    int parentB = journal.indexOf("exec p:B");
    int parentC = journal.indexOf("exec p:C");
    for (int i = 0; i < children; i++) {
      for (String state : List.of("A", "B", "C")) {
        int at = journal.indexOf("exec p." + i + ":" + state);
        assertTrue(at > parentB && at < parentC, "p." + i + ":" + state + " in " + journal);
      }
    }
    assertEquals("exec p:C", journal.get(journal.size() - 1));
    assertTrue(journal.stream().noneMatch(e -> e.startsWith("rollback")), journal.toString());
  }

  @Test
  void aWaitingTimeoutKeepsItsOriginalDeadlineAcrossARestart() throws Exception {
    ProcedureExecutor<TestEnv> executor = start(newStore(), registry());
    long id = executor.submit(new WaitingStep(clock::get, "w", 60_000));
    Awaitility.await()
        .atMost(WAIT)
        .until(() -> executor.getInfo(id).orElseThrow().state() == ProcedureState.WAITING_TIMEOUT);
    executor.stop();

    clock.set(T0 + 30_000); // half the wait passed while no executor ran
    ProcedureExecutor<TestEnv> restarted = start(newStore(), registry());
    assertEquals(ProcedureState.WAITING_TIMEOUT, restarted.getInfo(id).orElseThrow().state());
    // the original deadline is T0 + 60 s; a wait restarted at the restart would end at T0 + 90 s
    clock.set(T0 + 60_000);
    assertEquals(ProcedureState.SUCCESS, restarted.await(id, WAIT).state());
    assertEquals(List.of("exec w:WAIT@" + T0, "exec w:DONE@" + (T0 + 60_000)), env.journal());
  }

  /** A waiting step whose stored state cannot be decoded without running out of memory. */
  static final class GreedyWaitingStep extends WaitingStep {
    GreedyWaitingStep(LongSupplier clock) {
      super(clock);
    }

    GreedyWaitingStep(LongSupplier clock, String name, long waitMillis) {
      super(clock, name, waitMillis);
    }

    @Override
    protected void deserializeStateData(DataInputStream in) throws IOException {
      super.deserializeStateData(in);
      long[] unaffordable = new long[Integer.MAX_VALUE]; // more than any heap may hold
      name += unaffordable.length;
    }
  }

  @Test
  void aRecordWhoseDecodingRunsOutOfMemoryIsReportedCorruptAndTheOthersRecover() throws Exception {
    ProcedureRegistry withGreedy =
        registry()
            .register("Greedy", GreedyWaitingStep.class, () -> new GreedyWaitingStep(clock::get));
    ProcedureExecutor<TestEnv> executor = start(newStore(), withGreedy);
    long known = executor.submit(new WaitingStep(clock::get, "known", 60_000));
    long greedy = executor.submit(new GreedyWaitingStep(clock::get, "greedy", 60_000));
    Awaitility.await()
        .atMost(WAIT)
        .until(
            () ->
                Stream.of(known, greedy)
                    .allMatch(
                        id ->
                            executor.getInfo(id).orElseThrow().state()
                                == ProcedureState.WAITING_TIMEOUT));
    executor.stop();

    ProcedureExecutor<TestEnv> restarted = start(newStore(), withGreedy);
    ProcedureInfo corrupt = restarted.getInfo(greedy).orElseThrow();
    assertEquals(ProcedureState.FAILED, corrupt.state(), corrupt::toString);
    assertTrue(corrupt.failure().contains("corrupt"), corrupt.failure());
    assertTrue(corrupt.failure().contains("Greedy"), corrupt.failure());
    clock.set(T0 + 60_000);
    assertEquals(ProcedureState.SUCCESS, restarted.await(known, WAIT).state());
  }

  @Test
  void aRecordOfAnUnknownTypeIsReportedCorruptAndTheOthersRecover() throws Exception {
    ProcedureRegistry full =
        registry()
            .register(
                "OtherWaiting", WaitingStep.Other.class, () -> new WaitingStep.Other(clock::get));
    ProcedureExecutor<TestEnv> executor = start(newStore(), full);
    long done = executor.submit(new Steps("s"));
    assertEquals(ProcedureState.SUCCESS, executor.await(done, WAIT).state());
    long known = executor.submit(new WaitingStep(clock::get, "known", 60_000));
    long unknown = executor.submit(new WaitingStep.Other(clock::get, "unknown", 60_000));
    Awaitility.await()
        .atMost(WAIT)
        .until(
            () ->
                Stream.of(known, unknown)
                    .allMatch(
                        id ->
                            executor.getInfo(id).orElseThrow().state()
                                == ProcedureState.WAITING_TIMEOUT));
    executor.stop();

    // restart without the type "OtherWaiting": start() succeeds
    ProcedureExecutor<TestEnv> restarted = start(newStore(), registry());
    ProcedureInfo corrupt = restarted.getInfo(unknown).orElseThrow();
    assertEquals(ProcedureState.FAILED, corrupt.state());
    assertTrue(corrupt.finished(), corrupt.toString());
    assertEquals("OtherWaiting", corrupt.type());
    assertTrue(corrupt.failure().contains("corrupt"), corrupt.failure());
    assertTrue(
        corrupt.failure().contains("unknown procedure type 'OtherWaiting'"), corrupt.failure());
    ProcedureInfo listed =
        restarted.list().stream().filter(i -> i.procId() == unknown).findFirst().orElseThrow();
    assertEquals(corrupt.failure(), listed.failure());
    assertEquals(ProcedureState.SUCCESS, restarted.getInfo(done).orElseThrow().state());
    assertEquals(ProcedureState.WAITING_TIMEOUT, restarted.getInfo(known).orElseThrow().state());
    clock.set(T0 + 60_000);
    assertEquals(ProcedureState.SUCCESS, restarted.await(known, WAIT).state());
    long next = restarted.submit(new Steps("t"));
    assertTrue(next > unknown, "id " + next + " reused");
    assertEquals(ProcedureState.SUCCESS, restarted.await(next, WAIT).state());
    restarted.stop();

    // the record was kept: with the type registered again, the procedure carries on
    ProcedureExecutor<TestEnv> repaired = start(newStore(), full);
    assertEquals(ProcedureState.WAITING_TIMEOUT, repaired.getInfo(unknown).orElseThrow().state());
    assertEquals(ProcedureState.SUCCESS, repaired.await(unknown, WAIT).state());
    assertTrue(
        env.journal().contains("exec unknown:DONE@" + (T0 + 60_000)), env.journal().toString());
  }

  @Test
  void aTornTailWrittenBetweenRunsIsTruncatedAndTheProcedureContinues() throws Exception {
    CrashInjectingStore first = new CrashInjectingStore(newStore());
    ProcedureExecutor<TestEnv> executor = start(first, registry());
    first.arm(Mode.AFTER_PERSIST, 2);
    long id = executor.submit(new Steps("p"));
    assertEquals(List.of("exec p:A", "exec p:B"), awaitCrash(executor, first));

    // the crash also tore the next record: its header promises more bytes than were written
    Path segment = lastSegment();
    long goodSize = Files.size(segment);
    ByteBuffer torn = ByteBuffer.allocate(8 + 40);
    torn.putInt(300).putInt(0x1234_5678);
    Files.write(segment, torn.array(), StandardOpenOption.APPEND);

    ProcedureExecutor<TestEnv> restarted = start(newStore(), registry());
    assertEquals(ProcedureState.SUCCESS, restarted.await(id, WAIT).state());
    assertEquals(List.of("exec p:A", "exec p:B", "exec p:C"), env.journal());
    restarted.stop();
    assertTrue(Files.size(segment) > goodSize, "nothing written after the truncation");
    byte[] tail = new byte[8];
    ByteBuffer.wrap(Files.readAllBytes(segment), (int) goodSize, 8).get(tail);
    assertFalse(
        java.util.Arrays.equals(java.util.Arrays.copyOf(torn.array(), 8), tail),
        "the torn record is still in the segment");

    // and the store opens cleanly once more: the new records follow the good ones directly
    ProcedureExecutor<TestEnv> again = start(newStore(), registry());
    assertEquals(ProcedureState.SUCCESS, again.getInfo(id).orElseThrow().state());
  }

  @Test
  void anExecutorOnACorruptStoreFailsToStartAndALaterOneStartsOnceRepaired() throws Exception {
    ProcedureExecutor<TestEnv> executor = start(newStore(), registry());
    long id = executor.submit(new Steps("p"));
    assertEquals(ProcedureState.SUCCESS, executor.await(id, WAIT).state());
    executor.stop();
    Path segment = lastSegment();
    byte[] good = Files.readAllBytes(segment);
    byte[] bad = good.clone();
    bad[10] ^= 0x01; // in the payload of the first record; valid records follow it
    Files.write(segment, bad);

    ProcedureExecutor<TestEnv> refused =
        ProcedureExecutor.builder(env, newStore(), registry()).build();
    executors.add(refused);
    IOException e = assertThrows(IOException.class, refused::start);
    CorruptStoreException corrupt = assertInstanceOf(CorruptStoreException.class, e);
    assertEquals(segment, corrupt.file());
    assertEquals(0, corrupt.offset());
    assertFalse(refused.isRunning());
    assertArrayEquals(bad, Files.readAllBytes(segment), "a failed start changed the segment");

    Files.write(segment, good); // the operator restores the file
    ProcedureExecutor<TestEnv> repaired = start(newStore(), registry());
    assertEquals(ProcedureState.SUCCESS, repaired.getInfo(id).orElseThrow().state());
  }

  @Test
  void concurrentProceduresShareForcesOfTheFileStore() throws Exception {
    FileProcedureStore store = newStore();
    ProcedureExecutor<TestEnv> executor = start(store, registry(), 4);
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      ids.add(executor.submit(new Steps("p" + i)));
    }
    for (long id : ids) {
      assertEquals(ProcedureState.SUCCESS, executor.await(id, WAIT).state());
    }
    assertTrue(store.writtenBatchCount() >= 40 * 4, "batches: " + store.writtenBatchCount());
    assertTrue(
        store.syncCount() < store.writtenBatchCount(),
        store.syncCount() + " forces for " + store.writtenBatchCount() + " batches");
    executor.stop();

    ProcedureExecutor<TestEnv> restarted = start(newStore(), registry());
    for (long id : ids) {
      assertEquals(ProcedureState.SUCCESS, restarted.getInfo(id).orElseThrow().state());
    }
    assertEquals(40 * 3, env.journal().size(), "a step ran twice: " + env.journal());
  }

  private Path lastSegment() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(p -> p.getFileName().toString().startsWith("segment-"))
          .max(Path::compareTo)
          .orElseThrow();
    }
  }
}
