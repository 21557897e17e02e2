package dev.baton.confignode.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The JIT compilers' CPU time read from {@code /proc}: a compiler thread's stat line counts (user
 * plus system ticks), other threads' do not, names with spaces and parentheses do not shift the
 * fields, and this JVM's own compilers are found.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class JitActivityTest {
  /** A C2 compiler thread's line: utime 250, stime 7 ticks. */
  private static final String C2_LINE =
      "4242 (C2 CompilerThre) S 1 4200 4200 0 -1 4194368 9000 0 3 0 250 7 0 0 20 0 30 0 1234"
          + " 1000 200 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 -1 1 0 0 0 0 0";

  @Test
  void aCompilerThreadsTicksAreUserPlusSystem() {
    assertEquals(Optional.of(257L), JitActivity.compilerTicks(C2_LINE));
    assertEquals(
        Optional.of(257L),
        JitActivity.compilerTicks(C2_LINE.replace("C2 Compiler", "C1 Compiler")));
    assertEquals(Duration.ofMillis(2570), JitActivity.ticksToDuration(257));
  }

  @Test
  void otherThreadsAndBrokenLinesCountNothing() {
    assertEquals(Optional.empty(), JitActivity.compilerTicks(C2_LINE.replace("C2", "GC")));
    // a name that holds a parenthesis and a compiler's name further in is not a compiler thread
    assertEquals(
        Optional.empty(),
        JitActivity.compilerTicks(C2_LINE.replace("(C2 CompilerThre)", "(x) (C2 CompilerThre)")));
    assertEquals(Optional.empty(), JitActivity.compilerTicks("4242 (C2 CompilerThre) S 1 2"));
    assertEquals(Optional.empty(), JitActivity.compilerTicks(""));
    assertEquals(
        Optional.empty(), JitActivity.compilerTicks(C2_LINE.replace(" 250 7 ", " 250 x ")));
  }

  @Test
  void thisJvmsCompilersAreFoundAndTheirTimeOnlyGrows() {
    long pid = ProcessHandle.current().pid();
    if (!Files.isDirectory(Path.of("/proc", Long.toString(pid), "task"))) {
      throw new AssertionError("this test reads /proc, which Linux has; this system has none");
    }
    Optional<Duration> first = JitActivity.compilerCpu(pid);
    assertTrue(first.isPresent(), "no C1 or C2 compiler thread under /proc/" + pid + "/task");
    Optional<Duration> second = JitActivity.compilerCpu(pid);
    assertTrue(second.isPresent() && second.get().compareTo(first.get()) >= 0, second::toString);

    JitActivity.Watch watch = new JitActivity.Watch(List.of(pid, Long.MAX_VALUE));
    Optional<Double> share = watch.busiestShare();
    assertTrue(share.isPresent() && share.get() >= 0, share::toString);
    assertEquals(Optional.empty(), new JitActivity.Watch(List.of(Long.MAX_VALUE)).busiestShare());
  }
}
