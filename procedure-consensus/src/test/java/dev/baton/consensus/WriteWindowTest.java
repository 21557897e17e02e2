package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class WriteWindowTest {

  @Test
  void aFullWindowFailsAWriteAtOnceWithoutStartingItUntilAPlaceComesBack() throws Exception {
    WriteWindow window = new WriteWindow(2);
    CompletableFuture<String> first = new CompletableFuture<>();
    CompletableFuture<String> second = new CompletableFuture<>();
    assertSame(first, window.send(() -> first));
    assertSame(second, window.send(() -> second));
    AtomicInteger started = new AtomicInteger();

    CompletableFuture<String> refused =
        window.send(
            () -> {
              started.incrementAndGet();
              return new CompletableFuture<>();
            });

    assertTrue(refused.isDone(), "refused at once, not blocked");
    ExecutionException e = assertThrows(ExecutionException.class, refused::get);
    IOException io = assertInstanceOf(IOException.class, e.getCause());
    assertTrue(io.getMessage().contains("2 writes") && io.getMessage().contains("majority"));
    assertEquals(0, started.get(), "a refused write never reaches Ratis");
    assertEquals(2, window.inFlight());

    second.completeExceptionally(new IOException("gave up")); // a failed write frees its place too
    CompletableFuture<String> third = new CompletableFuture<>();
    assertSame(third, window.send(() -> third));
    assertEquals(2, window.inFlight());
    first.complete("ok");
    third.complete("ok");
    assertEquals(0, window.inFlight());
  }

  @Test
  void aWriteThatThrowsWhileStartingGivesItsPlaceBack() {
    WriteWindow window = new WriteWindow(1);
    assertThrows(
        IllegalStateException.class,
        () ->
            window.send(
                () -> {
                  throw new IllegalStateException("client closed");
                }));
    assertEquals(0, window.inFlight());
    CompletableFuture<String> next = new CompletableFuture<>();
    assertFalse(window.send(() -> next).isDone(), "the place was free again");
  }

  @Test
  void anEmptyWindowIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new WriteWindow(0));
  }
}
