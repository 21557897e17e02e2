package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.store.FileProcedureStore;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file store written by an earlier version of Baton (committed under {@code
 * src/test/resources/golden/file-store-v1}) is read and run to the end by today's code. A change
 * that cannot read that data fails here; a deliberate format change adds a converter and a new
 * golden directory, never edits this one.
 *
 * <p>{@link #main} wrote the directory: {@code mvn -pl procedure-core test-compile exec:java
 * -Dexec.classpathScope=test -Dexec.mainClass=dev.baton.procedure.GoldenStoreTest -Dexec.args=DIR}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GoldenStoreTest {
  /** The clock of the run that wrote the golden store, and of the run that reads it. */
  static final long T0 = 1_764_000_000_000L;

  static final String GOLDEN = "golden/file-store-v1";

  /** How long the waiting procedure of the golden store waits, from T0. */
  static final long WAIT_MILLIS = 60_000;

  static final long NONCE_GROUP = 9;

  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path dir;

  private static ProcedureRegistry registry(AtomicLong clock) {
    return new ProcedureRegistry()
        .register("Steps", Steps.class, Steps::new)
        .register("WaitingStep", WaitingStep.class, () -> new WaitingStep(clock::get));
  }

  private static ProcedureExecutor<TestEnv> executor(Path storeDir, TestEnv env, AtomicLong clock)
      throws IOException {
    ProcedureExecutor<TestEnv> executor =
        ProcedureExecutor.builder(
                env,
                new FileProcedureStore(storeDir, FileProcedureStore.Config.defaults()),
                registry(clock))
            .coreWorkers(1)
            .maxWorkers(1)
            .completedRetention(Duration.ofDays(1))
            .clock(clock::get)
            .build();
    executor.start();
    return executor;
  }

  /** Writes the golden store into {@code args[0]} (an empty or missing directory). */
  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]);
    TestEnv env = new TestEnv();
    env.failNext("failed:C", 1);
    AtomicLong clock = new AtomicLong(T0);
    ProcedureExecutor<TestEnv> executor = executor(out, env, clock);
    try {
      long done = executor.submit(new Steps("done"), new NonceKey(NONCE_GROUP, 1));
      executor.await(done, WAIT);
      long failed = executor.submit(new Steps("failed"), new NonceKey(NONCE_GROUP, 2));
      executor.await(failed, WAIT);
      long waiting =
          executor.submit(
              new WaitingStep(clock::get, "waiting", WAIT_MILLIS), new NonceKey(NONCE_GROUP, 3));
      Awaitility.await()
          .atMost(WAIT)
          .until(
              () ->
                  executor.getInfo(waiting).orElseThrow().state()
                      == ProcedureState.WAITING_TIMEOUT);
    } finally {
      executor.stop();
    }
  }

  private Path copyOfGolden() throws IOException, URISyntaxException {
    Path source = Path.of(GoldenStoreTest.class.getClassLoader().getResource(GOLDEN).toURI());
    Path copy = Files.createDirectories(dir.resolve("store"));
    try (Stream<Path> files = Files.list(source)) {
      for (Path f : files.toList()) {
        Files.copy(f, copy.resolve(f.getFileName()));
      }
    }
    return copy;
  }

  @Test
  void aStoreWrittenByTheFirstFormatIsReadAndRunToTheEnd() throws Exception {
    AtomicLong clock = new AtomicLong(T0);
    TestEnv env = new TestEnv();
    ProcedureExecutor<TestEnv> executor = executor(copyOfGolden(), env, clock);
    try {
      List<ProcedureInfo> all = executor.list();
      assertEquals(3, all.size(), all.toString());
      ProcedureInfo done = all.get(0);
      ProcedureInfo failed = all.get(1);
      ProcedureInfo waiting = all.get(2);
      assertEquals("Steps", done.type());
      assertEquals(ProcedureState.SUCCESS, done.state());
      assertEquals(ProcedureState.ROLLEDBACK, failed.state());
      assertTrue(failed.failure().contains("failed:C"), failed.failure());
      assertEquals("WaitingStep", waiting.type());
      assertEquals(ProcedureState.WAITING_TIMEOUT, waiting.state());
      assertEquals(T0, done.submittedTime());
      // the nonces were kept: the same submission answers with the stored procedure
      assertEquals(done.procId(), executor.submit(new Steps("done"), new NonceKey(NONCE_GROUP, 1)));
      // the wait keeps its deadline and the procedure finishes
      clock.set(T0 + WAIT_MILLIS);
      assertEquals(ProcedureState.SUCCESS, executor.await(waiting.procId(), WAIT).state());
      long next = executor.submit(new Steps("next"));
      assertTrue(next > waiting.procId(), "id " + next + " reused");
    } finally {
      executor.stop();
    }
  }
}
