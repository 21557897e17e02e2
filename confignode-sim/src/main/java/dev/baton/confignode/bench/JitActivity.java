package dev.baton.confignode.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * The CPU time a JVM's JIT compiler threads have used, read from Linux' {@code /proc/PID/task}: the
 * threads HotSpot names {@code C1 CompilerThreadN} and {@code C2 CompilerThreadN} (the kernel keeps
 * the first 15 characters). The bench's warm-up lasts until the nodes' compilers go quiet, because
 * a measured phase that starts while they still compile measures the JIT: on a 2-core machine the
 * four JVMs' compilers took a third of their CPU for tens of seconds under load. Empty where {@code
 * /proc} has no such threads (another system, or another VM).
 */
final class JitActivity {
  /** The thread name's start the kernel keeps for HotSpot's compiler threads. */
  static final List<String> COMPILER_THREADS = List.of("C1 CompilerThre", "C2 CompilerThre");

  /**
   * Clock ticks per second of {@code /proc}'s CPU times: USER_HZ, fixed at 100 by Linux' user ABI
   * whatever the kernel's own tick rate.
   */
  static final long TICKS_PER_SECOND = 100;

  /**
   * Fields of {@code /proc/PID/task/TID/stat} after the name: utime is the 12th, stime the 13th.
   */
  private static final int UTIME_AFTER_NAME = 11;

  private static final int STIME_AFTER_NAME = 12;

  private static final Path PROC = Path.of("/proc");

  private JitActivity() {}

  /** The CPU time process {@code pid}'s compiler threads have used; empty if none can be read. */
  static Optional<Duration> compilerCpu(long pid) {
    Path tasks = PROC.resolve(Long.toString(pid)).resolve("task");
    long ticks = 0;
    boolean found = false;
    try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks)) {
      for (Path thread : threads) {
        Optional<Long> t = compilerTicks(read(thread.resolve("stat")));
        if (t.isPresent()) {
          ticks += t.get();
          found = true;
        }
      }
    } catch (IOException e) {
      return Optional.empty();
    }
    return found ? Optional.of(ticksToDuration(ticks)) : Optional.empty();
  }

  /** A thread's stat line; empty when the thread ended meanwhile. */
  private static String read(Path stat) throws IOException {
    try {
      return Files.readString(stat);
    } catch (NoSuchFileException e) {
      return "";
    }
  }

  /**
   * The CPU ticks (user and system) of one {@code stat} line if it is a compiler thread's. The name
   * sits in parentheses and may hold spaces and parentheses itself, so the fields are counted from
   * the last closing one.
   */
  static Optional<Long> compilerTicks(String statLine) {
    int open = statLine.indexOf('(');
    int close = statLine.lastIndexOf(')');
    if (open < 0 || close < open) {
      return Optional.empty();
    }
    String name = statLine.substring(open + 1, close);
    if (COMPILER_THREADS.stream().noneMatch(name::startsWith)) {
      return Optional.empty();
    }
    String[] fields = statLine.substring(close + 1).trim().split("\\s+");
    if (fields.length <= STIME_AFTER_NAME) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          Long.parseLong(fields[UTIME_AFTER_NAME]) + Long.parseLong(fields[STIME_AFTER_NAME]));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /**
   * The compilers of several processes, looked at again and again: how busy the busiest was since
   * the previous look.
   */
  static final class Watch {
    private final List<Long> pids;
    private List<Optional<Duration>> last;
    private long lastAt;

    Watch(List<Long> pids) {
      this.pids = List.copyOf(pids);
      this.last = now();
      this.lastAt = System.nanoTime();
    }

    private List<Optional<Duration>> now() {
      return pids.stream().map(JitActivity::compilerCpu).toList();
    }

    /**
     * The largest share of one core any process's compilers used since the previous look (0.25: a
     * quarter of a core); empty when no process's compilers could be read.
     */
    Optional<Double> busiestShare() {
      List<Optional<Duration>> current = now();
      long at = System.nanoTime();
      long wall = Math.max(1, at - lastAt);
      Optional<Double> busiest = Optional.empty();
      for (int i = 0; i < pids.size(); i++) {
        if (current.get(i).isPresent() && last.get(i).isPresent()) {
          double share = (double) current.get(i).get().minus(last.get(i).get()).toNanos() / wall;
          busiest = Optional.of(Math.max(share, busiest.orElse(0.0)));
        }
      }
      last = current;
      lastAt = at;
      return busiest;
    }
  }

  /**
   * Whether to go on warming up, asked before each operation by the load's threads: yes until a
   * look at the compilers (one per {@code look}) finds the busiest under {@code quietShare} of a
   * core, or finds none to read, or {@code longest} has passed since it was made; then no, for
   * good. Made right before the warm-up it decides, like its {@link Watch}.
   */
  static final class UntilQuiet implements BooleanSupplier {
    private final Watch watch;
    private final long lookNanos;
    private final double quietShare;
    private final long longestNanos;
    private final long start = System.nanoTime();
    private long nextLook;
    private boolean done;
    private Optional<Double> lastShare = Optional.empty();

    UntilQuiet(Watch watch, Duration look, double quietShare, Duration longest) {
      this.watch = watch;
      this.lookNanos = look.toNanos();
      this.quietShare = quietShare;
      this.longestNanos = longest.toNanos();
      this.nextLook = start + lookNanos;
    }

    @Override
    public synchronized boolean getAsBoolean() {
      if (done) {
        return false;
      }
      long now = System.nanoTime();
      if (now < nextLook) {
        return true;
      }
      lastShare = watch.busiestShare();
      nextLook = now + lookNanos;
      done = lastShare.isEmpty() || lastShare.get() < quietShare || now - start >= longestNanos;
      return !done;
    }

    /** What the last look found: the busiest compilers' share of a core. */
    synchronized Optional<Double> lastShare() {
      return lastShare;
    }

    /** Whether the last look found the compilers quiet (not just out of time). */
    synchronized boolean quiet() {
      return lastShare.isPresent() && lastShare.get() < quietShare;
    }
  }

  static Duration ticksToDuration(long ticks) {
    return Duration.ofMillis(ticks * Duration.ofSeconds(1).toMillis() / TICKS_PER_SECOND);
  }
}
