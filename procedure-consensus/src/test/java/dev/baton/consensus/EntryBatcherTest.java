package dev.baton.consensus;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EntryBatcherTest {
  private static final Duration TIMEOUT = Duration.ofMillis(200);
  private static final long WAIT = 10;

  /** Entries the sender was given, each with the future that completes it. */
  private final List<List<ByteString>> sent = new CopyOnWriteArrayList<>();

  private final List<CompletableFuture<List<Integer>>> replies = new CopyOnWriteArrayList<>();
  private final LatencyHistogram queued = new LatencyHistogram();
  private final LatencyHistogram committed = new LatencyHistogram();

  private EntryBatcher<ByteString, Integer> batcher(int maxEntriesInFlight) {
    return batcher(maxEntriesInFlight, null);
  }

  private EntryBatcher<ByteString, Integer> batcher(int maxEntriesInFlight, Duration timeout) {
    return new EntryBatcher<>(
        this::record,
        ByteString::size,
        () -> new NotLeaderException("stopped"),
        new EntryBatcher.Limits(
            EntryBatcher.Limits.DEFAULT_MAX_ITEMS, 1 << 20, maxEntriesInFlight, 1),
        timeout,
        queued,
        committed,
        System::nanoTime);
  }

  /**
   * A batcher without timeout whose sender records each entry (sent, replies), on a clock that does
   * not move: no commit takes time, so no entry is staggered.
   */
  private EntryBatcher<ByteString, Integer> recording(EntryBatcher.Limits limits) {
    return recording(limits, new AtomicLong());
  }

  private EntryBatcher<ByteString, Integer> recording(
      EntryBatcher.Limits limits, AtomicLong nanoClock) {
    return new EntryBatcher<>(
        this::record,
        ByteString::size,
        () -> new NotLeaderException("stopped"),
        limits,
        null,
        queued,
        committed,
        nanoClock::get);
  }

  /** The sender: records the entry and the future that will complete it. */
  private CompletableFuture<List<Integer>> record(List<ByteString> items) {
    sent.add(items);
    CompletableFuture<List<Integer>> reply = new CompletableFuture<>();
    replies.add(reply);
    return reply;
  }

  private static ByteString item(int i) {
    return ByteString.copyFromUtf8("item-" + i);
  }

  @Test
  void itemsQueuedBehindAFullPipelineShareTheNextEntryAndTheTimingsCountThem() throws Exception {
    EntryBatcher<ByteString, Integer> b = batcher(1);
    List<CompletableFuture<Integer>> results = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      results.add(b.add(item(i)));
    }
    // the first item went out alone; the other four wait for the pipeline
    assertEquals(1, sent.size());
    assertEquals(List.of(item(0)), sent.get(0));
    replies.get(0).complete(List.of(10));
    assertEquals(10, results.get(0).get());
    assertEquals(2, sent.size());
    assertEquals(List.of(item(1), item(2), item(3), item(4)), sent.get(1));
    replies.get(1).complete(List.of(11, 12, 13, 14));
    assertEquals(14, results.get(4).get());

    assertEquals(5, queued.count());
    assertEquals(2, committed.count());
  }

  @Test
  void aFailedEntryFailsItsItemsAndStopFailsQueuedOnes() {
    EntryBatcher<ByteString, Integer> b = batcher(1);
    CompletableFuture<Integer> first = b.add(item(1));
    CompletableFuture<Integer> second = b.add(item(2));
    replies.get(0).completeExceptionally(new IllegalStateException("refused"));
    assertTrue(first.isCompletedExceptionally());
    // the second went out after the first failed; stop cuts it off
    assertEquals(2, sent.size());
    b.stop();
    assertTrue(second.isCompletedExceptionally());
    assertTrue(b.add(item(3)).isCompletedExceptionally());
    assertEquals(1, committed.count());
    assertEquals(0, Collections.frequency(sent, List.of(item(3))));
  }

  @Test
  void theNextEntryGoesOutBeforeTheFinishedEntrysCallbacksRun() throws Exception {
    EntryBatcher<ByteString, Integer> b = batcher(1);
    CompletableFuture<Integer> first = b.add(item(1));
    b.add(item(2)); // queued behind the first entry
    AtomicInteger sentWhenTheCallbackRan = new AtomicInteger(-1);
    first.thenRun(() -> sentWhenTheCallbackRan.set(sent.size()));
    replies.get(0).complete(List.of(10));
    assertEquals(10, first.get(WAIT, SECONDS));
    assertEquals(2, sentWhenTheCallbackRan.get(), "a callback held up the next entry");
  }

  @Test
  void stopLeavesThePickedInFlightItemsToTheirEntrysReply() throws Exception {
    EntryBatcher<ByteString, Integer> b = batcher(1);
    CompletableFuture<Integer> kept = b.add(item(1));
    CompletableFuture<Integer> cut = b.add(item(2)); // queued: never sent, fails at once
    b.stop(value -> value.equals(item(1)));
    assertTrue(cut.isCompletedExceptionally());
    assertFalse(kept.isDone(), "an item picked to await its reply was failed by stop");
    replies.get(0).complete(List.of(10));
    assertEquals(10, kept.get(WAIT, SECONDS));
    assertEquals(1, sent.size(), "an entry went out after stop");
  }

  @Test
  void withATimeoutAnUnansweredEntryFailsItsItemsAndTheQueuedOnesAreBoundedToo() throws Exception {
    EntryBatcher<ByteString, Integer> b = batcher(1, TIMEOUT);
    long start = System.nanoTime();
    CompletableFuture<Integer> first = b.add(item(1));
    CompletableFuture<Integer> second = b.add(item(2)); // queued behind the first entry

    ExecutionException e = assertThrows(ExecutionException.class, () -> first.get(WAIT, SECONDS));
    assertTrue(e.getCause() instanceof TimeoutException, e::toString);
    assertTrue(
        System.nanoTime() - start >= TIMEOUT.toNanos(), "not before the timeout: " + e.getCause());
    // the second goes out when the first timed out, or, if its own time ran out meanwhile (a late
    // timer), fails unsent: either way it is bounded by its own time
    e = assertThrows(ExecutionException.class, () -> second.get(WAIT, SECONDS));
    assertTrue(e.getCause() instanceof TimeoutException, e::toString);

    CompletableFuture<Integer> third = b.add(item(3));
    await()
        .atMost(Duration.ofSeconds(WAIT))
        .until(() -> sent.contains(List.of(item(3))) && replies.size() == sent.size());
    replies.get(sent.indexOf(List.of(item(3)))).complete(List.of(30));
    assertEquals(30, third.get(WAIT, SECONDS), "an entry answered in time is not failed");
  }

  @Test
  void whileAnEntryIsOnItsWayTheNextWaitsUntilItCarriesEnoughItems() throws Exception {
    int minItems = 3;
    EntryBatcher<ByteString, Integer> b =
        recording(
            new EntryBatcher.Limits(EntryBatcher.Limits.DEFAULT_MAX_ITEMS, 1 << 20, 3, minItems));
    List<CompletableFuture<Integer>> results = new ArrayList<>();
    results.add(b.add(item(0)));
    assertEquals(1, sent.size(), "a lone item goes out at once");
    results.add(b.add(item(1)));
    results.add(b.add(item(2)));
    assertEquals(1, sent.size(), "two items do not overlap the entry on its way");
    results.add(b.add(item(3)));
    assertEquals(2, sent.size(), "three do");
    assertEquals(List.of(item(1), item(2), item(3)), sent.get(1));
    results.add(b.add(item(4)));
    replies.get(0).complete(List.of(10));
    assertEquals(2, sent.size(), "one entry still on its way: the single queued item waits");
    replies.get(1).complete(List.of(11, 12, 13));
    assertEquals(3, sent.size(), "nothing on its way: the queued item goes out alone");
    assertEquals(List.of(item(4)), sent.get(2));
    replies.get(2).complete(List.of(14));
    for (int i = 0; i < results.size(); i++) {
      assertEquals(10 + i, results.get(i).get(WAIT, SECONDS));
    }
  }

  @Test
  void anOverlappingEntryGoesOutEarlyOnceItsItemsFillTheByteBound() {
    EntryBatcher<ByteString, Integer> b =
        recording(new EntryBatcher.Limits(EntryBatcher.Limits.DEFAULT_MAX_ITEMS, 8, 3, 100));
    b.add(ByteString.copyFromUtf8("a"));
    b.add(ByteString.copyFromUtf8("bbbb"));
    assertEquals(1, sent.size());
    b.add(ByteString.copyFromUtf8("cccc"));
    assertEquals(2, sent.size(), "8 bytes queued fill an entry: no reason to wait");
  }

  @Test
  void fewWritersGetEntriesStaggeredOverACommitUpToTheLimitInFlight() throws Exception {
    AtomicLong clock = new AtomicLong();
    EntryBatcher<ByteString, Integer> b = recording(EntryBatcher.Limits.defaults(), clock);
    int limit = EntryBatcher.Limits.DEFAULT_MAX_ENTRIES_IN_FLIGHT;
    long commit = TimeUnit.MILLISECONDS.toNanos(90);
    long share = commit / limit;
    List<CompletableFuture<Integer>> results = new ArrayList<>();
    results.add(b.add(item(0)));
    clock.addAndGet(commit);
    replies.get(0).complete(List.of(10)); // a commit takes 90 ms
    results.add(b.add(item(1)));
    assertEquals(2, sent.size(), "nothing on its way: a lone item goes out at once");
    clock.addAndGet(share - 1);
    results.add(b.add(item(2)));
    assertEquals(2, sent.size(), "before its share of a commit the next entry waits");
    clock.addAndGet(1);
    results.add(b.add(item(3)));
    assertEquals(3, sent.size(), "after it, the queued items overlap the entry on its way");
    assertEquals(List.of(item(2), item(3)), sent.get(2));
    for (int i = 4; i < 4 + limit; i++) {
      clock.addAndGet(share);
      results.add(b.add(item(i)));
    }
    assertEquals(1 + limit, sent.size(), "never more entries on their way than the limit");
    assertEquals(List.of(item(4)), sent.get(3));
    replies.get(1).complete(List.of(11));
    assertEquals(2 + limit, sent.size(), "a freed slot takes the queued items");
    assertEquals(List.of(item(5), item(6)), sent.get(4));
    replies.get(2).complete(List.of(12, 13));
    replies.get(3).complete(List.of(14));
    replies.get(4).complete(List.of(15, 16));
    for (int i = 0; i < results.size(); i++) {
      assertEquals(10 + i, results.get(i).get(WAIT, SECONDS));
    }
  }
}
