package dev.baton.confignode.rolling;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The operator's restart command: placeholders, its output, a failure that says why. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CommandRestartHookTest {
  private static final NodeProcess NODE = new NodeProcess("cn2", "10.0.0.2:8081", 4242, 1);
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  @Test
  void fillsEveryPlaceholderAndPassesTheOutputOn() throws Exception {
    List<String> lines = new CopyOnWriteArrayList<>();
    CommandRestartHook hook =
        new CommandRestartHook("echo {id} {address} {host} {port} {pid}", TIMEOUT, lines::add);
    assertEquals("echo cn2 10.0.0.2:8081 10.0.0.2 8081 4242", hook.commandFor(NODE));
    hook.restart(NODE);
    assertEquals(List.of("cn2 10.0.0.2:8081 10.0.0.2 8081 4242"), lines);
  }

  @Test
  void aFailingCommandFailsTheRestartWithItsExitAndOutput() {
    CommandRestartHook hook =
        new CommandRestartHook("echo no unit baton@{id} >&2; exit 5", TIMEOUT, line -> {});
    IOException e = assertThrows(IOException.class, () -> hook.restart(NODE));
    assertTrue(e.getMessage().contains("restart command for cn2 exited with 5"), e.getMessage());
    assertTrue(e.getMessage().contains("no unit baton@cn2"), e.getMessage());
  }

  /**
   * A command that leaves a process in the background holding its output (a node started with
   * {@code &}) counts as done when it exits: the restart returns long before the background process
   * ends (the class timeout would end the test otherwise).
   */
  @Test
  void aBackgroundProcessHoldingTheOutputIsNotWaitedFor() throws Exception {
    List<String> lines = new CopyOnWriteArrayList<>();
    CommandRestartHook hook =
        new CommandRestartHook("sleep 600 & echo $!", Duration.ofMinutes(20), lines::add);
    try {
      hook.restart(NODE);
    } finally {
      // the line may still be on its way to the reader thread, which was not waited for
      await("the background process's pid").atMost(TIMEOUT).until(() -> !lines.isEmpty());
      lines.stream()
          .map(Long::parseLong)
          .map(ProcessHandle::of)
          .forEach(p -> p.ifPresent(ProcessHandle::destroy));
    }
    assertEquals(1, lines.size(), lines::toString);
  }

  @Test
  void aCommandThatDoesNotReturnIsStoppedAfterItsTimeout() {
    CommandRestartHook hook =
        new CommandRestartHook("exec sleep 30", Duration.ofMillis(300), line -> {});
    IOException e = assertThrows(IOException.class, () -> hook.restart(NODE));
    assertTrue(e.getMessage().contains("ran longer than"), e.getMessage());
  }
}
