package dev.baton.procedure.bench;

import dev.baton.procedure.store.FileProcedureStore;
import dev.baton.procedure.store.InMemoryProcedureStore;
import dev.baton.procedure.store.ProcedureStore;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The procedure-core benchmark: an executor with two workers, fed by two submitter threads with
 * three-state no-op procedures ({@link NoopSteps}).
 *
 * <ol>
 *   <li>In-memory store: procedures, steps and store updates per second.
 *   <li>File store (fsync on, default config) in a temporary directory: the same, plus forces and
 *       batches per force (group commit).
 *   <li>Recovery: a store holding {@code bench.live} procedures parked in WAITING_TIMEOUT for an
 *       hour; a new executor's {@code start()} is timed (procedures rebuilt per second) and the
 *       heap the rebuilt procedures take is measured. In-memory store, then file store; then a file
 *       store of procedures each with a due state, which the recovery counts as run and writes.
 * </ol>
 *
 * Run from the repository root:
 *
 * <pre>
 * mvn -B -q -pl procedure-core -am test-compile exec:java@bench-core
 * </pre>
 *
 * (procedure-core depends on no other module, so {@code -am} is not needed; with it Maven would
 * also look for the {@code bench} execution in the parent pom and fail.)
 *
 * <p>Sizes are system properties ({@code -Dbench.warmupSeconds=20}, {@code
 * bench.fileWarmupSeconds}, {@code bench.procedures}, {@code bench.fileProcedures}, {@code
 * bench.live}, {@code bench.recoveryRounds}, {@code bench.inFlight}, {@code bench.fileRecovery};
 * see {@link BenchSettings}). It runs inside Maven's JVM, so JVM flags (heap, a flight recording)
 * go in {@code MAVEN_OPTS}. The table and the JSON line go to stdout, progress to stderr. Figures
 * depend on whatever else runs on the machine; the load average and this JVM's share of the cores
 * are printed with them.
 *
 * <p>Recovery figures depend on the heap. The full collections that measure heap per procedure
 * would let G1 shrink the heap, and each timed {@code start()} would then pay for committing and
 * first touching memory again; so the benchmark sets MaxHeapFreeRatio=100 at run time (a manageable
 * flag) and the heap stays committed, as in a JVM that has been running. The first (cold) recovery
 * round still grows the heap and runs unwarmed code. {@code MAVEN_OPTS="-Xms2g -Xmx2g
 * -XX:+AlwaysPreTouch"} takes the growth out of the cold round as well.
 */
public final class CoreBenchmark {
  /** In-memory store: steps per second to reach. */
  static final double TARGET_IN_MEMORY_STEPS_PER_SECOND = 100_000;

  /** File store with fsync: store updates (batches written) per second to reach. */
  static final double TARGET_FILE_UPDATES_PER_SECOND = 20_000;

  /** Recovery: procedures rebuilt per second to reach. */
  static final double TARGET_RECOVERY_PER_SECOND = 200_000;

  private static final String LOG_LEVEL_PROPERTY = "org.slf4j.simpleLogger.defaultLogLevel";
  private static final String QUIET_LOG_LEVEL = "warn";
  private static final double NANOS_PER_MILLI = 1e6;
  private static final double MICROS_PER_SECOND = 1e6;

  /**
   * Threads that can each have one store write in flight: submitters (submit persists) and workers
   * (each step persists). With perfect group commit, one fsync carries one write of each, so they
   * bound the file store's updates per second at this many per fsync.
   */
  private static final int WRITER_THREADS = Submitters.THREADS + BenchExecutors.WORKERS;

  /** The time bound of a measured run, which is bounded by its procedure count instead. */
  private static final Duration NO_TIME_LIMIT = Duration.ofHours(1);

  private CoreBenchmark() {}

  public static void main(String[] args) throws Exception {
    if (System.getProperty(LOG_LEVEL_PROPERTY) == null) {
      System.setProperty(LOG_LEVEL_PROPERTY, QUIET_LOG_LEVEL); // the executors' INFO lines
    }
    BenchSettings settings = BenchSettings.fromSystemProperties();
    CoreBenchReport report = new CoreBenchReport();
    describeMachine(report, settings);
    report.context("heap", JvmMeter.keepHeapCommitted());
    List<Path> tempDirs = new ArrayList<>();
    try {
      inMemoryThroughput(settings, report);
      fileThroughput(settings, report, tempDirs);
      recovery(
          "recovery (in-memory)",
          "recovery_in_memory",
          Fill.PARKED_IN_MEMORY,
          settings,
          report,
          tempDirs);
      if (settings.fileRecovery()) {
        recovery("recovery (file)", "recovery_file", Fill.PARKED_FILE, settings, report, tempDirs);
        recovery(
            "recovery with due steps (file)",
            "recovery_due_steps_file",
            Fill.HELD_FILE,
            settings,
            report,
            tempDirs);
      }
    } finally {
      for (Path dir : tempDirs) {
        deleteRecursively(dir);
      }
    }
    report.context("load average at end", loadAverage());
    report.print(System.out);
  }

  private static void describeMachine(CoreBenchReport report, BenchSettings settings) {
    Runtime rt = Runtime.getRuntime();
    report.context("cores", rt.availableProcessors());
    report.context(
        "jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
    report.context("max heap", rt.maxMemory() / (1 << 20) + " MiB");
    report.context("load average at start", loadAverage());
    report.context(
        "setup",
        BenchExecutors.WORKERS
            + " workers, "
            + Submitters.THREADS
            + " submitters, "
            + NoopSteps.STEPS
            + "-state no-op procedures, "
            + settings.inFlight()
            + " in flight at most");
    report.context(
        "sizes",
        "warm-up "
            + settings.warmup().toSeconds()
            + " s (file "
            + settings.fileWarmup().toSeconds()
            + " s), procedures "
            + settings.procedures()
            + ", file procedures "
            + settings.fileProcedures()
            + ", live "
            + settings.live()
            + ", recovery rounds "
            + settings.recoveryRounds());
  }

  private static void inMemoryThroughput(BenchSettings settings, CoreBenchReport report)
      throws Exception {
    ThroughputRun run = new ThroughputRun(settings.inFlight());
    progress("in-memory: warming up for %d s", settings.warmup().toSeconds());
    ThroughputRun.Result warm =
        run.run(new CountingStore(new InMemoryProcedureStore()), Long.MAX_VALUE, settings.warmup());
    progress("in-memory: warm-up ran %,d procedures", warm.procedures());
    progress("in-memory: measuring %,d procedures", settings.procedures());
    ThroughputRun.Result r =
        run.run(
            new CountingStore(new InMemoryProcedureStore()), settings.procedures(), NO_TIME_LIMIT);
    String s = "in-memory store";
    report.figure(s, "in_memory.procedures", "procedures", r.procedures(), 0);
    report.figure(s, "in_memory.seconds", "seconds", r.seconds(), 2);
    report.figure(s, "in_memory.procedures_per_s", "procedures/s", r.perSecond(r.procedures()), 0);
    report.figure(
        s,
        "in_memory.steps_per_s",
        "steps/s",
        r.perSecond(r.steps()),
        TARGET_IN_MEMORY_STEPS_PER_SECOND);
    report.figure(s, "in_memory.updates_per_s", "store updates/s", r.perSecond(r.storeWrites()), 0);
    report.figure(
        s,
        "in_memory.updates_per_procedure",
        "store updates/procedure",
        (double) r.storeWrites() / r.procedures(),
        2);
    jvmRows(report, s, "in_memory", r);
  }

  private static void jvmRows(
      CoreBenchReport report, String s, String key, ThroughputRun.Result r) {
    report.figure(s, key + ".cpu_percent", "JVM CPU, % of all cores", r.cpuPercent(), 0);
    report.figure(
        s,
        key + ".gc_percent",
        "GC time, % of the run",
        100.0 * r.gcMillis() / (r.nanos() / 1e6),
        1);
  }

  private static void fileThroughput(
      BenchSettings settings, CoreBenchReport report, List<Path> dirs) throws Exception {
    ThroughputRun run = new ThroughputRun(settings.inFlight());
    Path probeDir = Files.createTempDirectory("baton-bench-probe-");
    dirs.add(probeDir);
    double rawFsyncMicros = FsyncProbe.medianMicros(probeDir);
    progress("file store: raw append+fsync takes %.0f us (median)", rawFsyncMicros);
    progress("file store: warming up for %d s", settings.fileWarmup().toSeconds());
    run.run(newFileStore(dirs), Long.MAX_VALUE, settings.fileWarmup());
    progress("file store: measuring %,d procedures", settings.fileProcedures());
    ThroughputRun.Result r = run.run(newFileStore(dirs), settings.fileProcedures(), NO_TIME_LIMIT);
    String s = "file store (fsync)";
    report.figure(s, "file.procedures", "procedures", r.procedures(), 0);
    report.figure(s, "file.seconds", "seconds", r.seconds(), 2);
    report.figure(s, "file.procedures_per_s", "procedures/s", r.perSecond(r.procedures()), 0);
    report.figure(s, "file.steps_per_s", "steps/s", r.perSecond(r.steps()), 0);
    report.figure(
        s,
        "file.updates_per_s",
        "store updates/s",
        r.perSecond(r.storeWrites()),
        TARGET_FILE_UPDATES_PER_SECOND);
    report.figure(
        s,
        "file.updates_per_procedure",
        "store updates/procedure",
        (double) r.storeWrites() / r.procedures(),
        2);
    report.figure(s, "file.fsyncs_per_s", "fsyncs/s", r.perSecond(r.syncs()), 0);
    report.figure(s, "file.batches_per_fsync", "batches per fsync", r.batchesPerSync(), 2);
    report.figure(
        s,
        "file.fsync_cycle_us",
        "us per fsync cycle",
        r.syncs() == 0 ? 0 : r.nanos() / 1e3 / r.syncs(),
        0);
    report.figure(s, "file.raw_fsync_us", "raw append+fsync us (median)", rawFsyncMicros, 0);
    report.figure(
        s,
        "file.ceiling_updates_per_s",
        "ceiling without pipelining: writers / raw fsync",
        WRITER_THREADS * MICROS_PER_SECOND / rawFsyncMicros,
        0);
    jvmRows(report, s, "file", r);
  }

  private static CountingStore newFileStore(List<Path> dirs) throws IOException {
    Path dir = Files.createTempDirectory("baton-bench-");
    dirs.add(dir);
    return new CountingStore(new FileProcedureStore(dir, FileProcedureStore.Config.defaults()));
  }

  /** What a recovery measurement rebuilds. */
  private enum Fill {
    /** {@link ParkedProcedure}s in an in-memory store. */
    PARKED_IN_MEMORY,
    /** {@link ParkedProcedure}s in a file store. */
    PARKED_FILE,
    /**
     * {@link ParkedProcedure}s held before parking, in a file store, each with its first state due:
     * the recovery counts and writes every one. Each round recovers a fresh copy of the filled
     * directory (copied before the timed start), so every round writes them all.
     */
    HELD_FILE
  }

  /**
   * Fills a store and recovers it {@code recoveryRounds} times. The in-memory store is one instance
   * throughout; a file store is filled with fsync off (the bytes on disk are the same) and each
   * round opens the directory (or a fresh copy of it) with a new default store.
   */
  private static void recovery(
      String section,
      String key,
      Fill fill,
      BenchSettings settings,
      CoreBenchReport report,
      List<Path> dirs)
      throws Exception {
    Supplier<ProcedureStore> reopen;
    progress("%s: filling with %,d procedures (%s)", section, settings.live(), fill);
    if (fill == Fill.PARKED_IN_MEMORY) {
      InMemoryProcedureStore store = new InMemoryProcedureStore();
      RecoveryRun.fill(store, settings.live(), false);
      reopen = () -> store;
    } else {
      Path dir = Files.createTempDirectory("baton-bench-recovery-");
      dirs.add(dir);
      FileProcedureStore filling =
          new FileProcedureStore(dir, FileProcedureStore.Config.defaults().withFsync(false));
      RecoveryRun.fill(filling, settings.live(), fill == Fill.HELD_FILE);
      reopen =
          fill == Fill.HELD_FILE
              ? () ->
                  new FileProcedureStore(copyOf(dir, dirs), FileProcedureStore.Config.defaults())
              : () -> new FileProcedureStore(dir, FileProcedureStore.Config.defaults());
    }
    List<RecoveryRun.Result> rounds = new ArrayList<>();
    for (int i = 0; i < settings.recoveryRounds(); i++) {
      RecoveryRun.Result r =
          RecoveryRun.recover(reopen.get(), settings.live(), fill == Fill.HELD_FILE);
      progress(
          "%s: round %d: start() %.1f ms (GC %d ms, thread CPU %.0f ms), %,.0f procedures/s,"
              + " %,.0f heap bytes/procedure",
          section,
          i + 1,
          r.startNanos() / NANOS_PER_MILLI,
          r.gcMillis(),
          r.threadCpuNanos() / NANOS_PER_MILLI,
          r.perSecond(),
          r.heapBytesPerProcedure());
      rounds.add(r);
    }
    RecoveryRun.Result cold = rounds.get(0);
    List<RecoveryRun.Result> warmRounds =
        new ArrayList<>(rounds.size() == 1 ? rounds : rounds.subList(1, rounds.size()));
    warmRounds.sort(Comparator.comparingLong(RecoveryRun.Result::startNanos));
    // The median; of an even count the slower middle one, so two warm rounds do not report the
    // best.
    RecoveryRun.Result warm = warmRounds.get(warmRounds.size() / 2);
    String warmLabel = rounds.size() == 1 ? "" : " (warm median)";
    report.figure(section, key + ".live", "live procedures", settings.live(), 0);
    report.figure(section, key + ".start_ms", "start() ms" + warmLabel, warm.startNanos() / 1e6, 1);
    report.figure(
        section,
        key + ".procedures_per_s",
        "procedures rebuilt/s" + warmLabel,
        warm.perSecond(),
        TARGET_RECOVERY_PER_SECOND);
    report.figure(section, key + ".gc_ms", "GC ms in start()" + warmLabel, warm.gcMillis(), 0);
    report.figure(
        section,
        key + ".thread_cpu_ms",
        "start() thread CPU ms" + warmLabel,
        warm.threadCpuNanos() / NANOS_PER_MILLI,
        0);
    report.figure(
        section,
        key + ".cold_procedures_per_s",
        "procedures rebuilt/s (cold)",
        cold.perSecond(),
        0);
    report.figure(
        section,
        key + ".heap_bytes_per_procedure",
        "heap bytes/live procedure",
        warm.heapBytesPerProcedure(),
        0);
  }

  private static String loadAverage() {
    double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    return load < 0 ? "n/a" : String.format(Locale.ROOT, "%.2f", load);
  }

  private static void progress(String format, Object... args) {
    PrintStream err = System.err;
    err.printf("[bench] " + format + "%n", args);
  }

  /**
   * A new temporary directory holding a copy of {@code dir}'s files, to delete with {@code dirs}.
   */
  private static Path copyOf(Path dir, List<Path> dirs) {
    try {
      Path copy = Files.createTempDirectory("baton-bench-recovery-copy-");
      dirs.add(copy);
      try (Stream<Path> paths = Files.walk(dir)) {
        for (Path p : paths.sorted().toList()) {
          Path target = copy.resolve(dir.relativize(p).toString());
          if (Files.isDirectory(p)) {
            Files.createDirectories(target);
          } else {
            Files.copy(p, target);
          }
        }
      }
      return copy;
    } catch (IOException e) {
      throw new UncheckedIOException("copying " + dir, e);
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
