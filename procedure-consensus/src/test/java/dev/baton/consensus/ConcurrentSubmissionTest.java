package dev.baton.consensus;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.NonceKey;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hundreds of submissions from several threads (to the leader, to followers, through an external
 * client) while the leader is killed twice: every acknowledged submission runs exactly once to
 * SUCCESS, and the journal shows no step run twice except the ones a kill interrupted.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ConcurrentSubmissionTest {
  /**
   * Submissions per thread: to the leader and to followers (asynchronously, a round at a time), and
   * through an external client (one call at a time).
   */
  static final int[] PER_THREAD = {120, 120, 60};

  static final int THREADS = PER_THREAD.length;
  static final int CLIENT_THREAD = 2;

  /** Each thread submits its share in this many rounds; a leader dies as rounds 2 and 3 start. */
  static final int ROUNDS = 3;

  static final Duration SUBMIT_DEADLINE = Duration.ofSeconds(60);

  @TempDir Path dir;

  /** nonce → the id each acknowledgement of it returned. */
  private final Map<NonceKey, Set<Long>> acknowledged = new ConcurrentHashMap<>();

  @Test
  void threeHundredSubmissionsAcrossTwoLeaderKillsRunExactlyOnce() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try (TestCluster cluster = new TestCluster(dir, 3).startAll();
        ProcedureClient client = ProcedureClient.connect(cluster.peers, Work.registry())) {
      cluster.awaitRunningLeader();
      List<CountDownLatch> roundDone = new ArrayList<>();
      List<CountDownLatch> roundGo = new ArrayList<>();
      for (int r = 0; r < ROUNDS; r++) {
        roundDone.add(new CountDownLatch(THREADS));
        roundGo.add(new CountDownLatch(1));
      }
      List<Future<?>> submitters = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        submitters.add(
            pool.submit(
                () -> {
                  for (int r = 0; r < ROUNDS; r++) {
                    if (!roundGo.get(r).await(120, TimeUnit.SECONDS)) {
                      throw new IllegalStateException("round " + r + " never started");
                    }
                    int per = PER_THREAD[thread] / ROUNDS;
                    int from = r * per;
                    int to = r == ROUNDS - 1 ? PER_THREAD[thread] : from + per;
                    if (thread == CLIENT_THREAD) {
                      for (int i = from; i < to; i++) {
                        submit(cluster, client, thread, i);
                      }
                    } else {
                      submitRound(cluster, thread, from, to);
                    }
                    roundDone.get(r).countDown();
                  }
                  return null;
                }));
      }

      List<Long> killedTerms = new ArrayList<>();
      for (int r = 0; r < ROUNDS; r++) {
        if (r > 0) {
          // the next round's submissions race the failover
          ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
          killedTerms.add(leader.term());
          roundGo.get(r).countDown();
          cluster.kill(leader.nodeId());
          cluster.start(leader.nodeId());
        } else {
          roundGo.get(r).countDown();
        }
        assertTrue(roundDone.get(r).await(120, TimeUnit.SECONDS), "round " + r);
      }
      for (Future<?> f : submitters) {
        f.get(10, TimeUnit.SECONDS);
      }

      // every acknowledged nonce has one id, and ids are distinct
      assertEquals(IntStream.of(PER_THREAD).sum(), acknowledged.size());
      Set<Long> ids = new HashSet<>();
      for (Map.Entry<NonceKey, Set<Long>> e : acknowledged.entrySet()) {
        assertEquals(1, e.getValue().size(), "acknowledged ids of " + e.getKey());
        assertTrue(ids.add(e.getValue().iterator().next()), "id reused: " + e);
      }

      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      List<ProcedureInfo> all =
          await()
              .atMost(Duration.ofSeconds(90))
              .ignoreExceptionsInstanceOf(java.util.concurrent.ExecutionException.class)
              .until(
                  () -> leader.list().get(30, TimeUnit.SECONDS),
                  list -> list.stream().filter(ProcedureInfo::finished).count() >= ids.size());
      Map<Long, ProcedureInfo> byId = new HashMap<>();
      all.forEach(i -> byId.put(i.procId(), i));
      assertEquals(ids, byId.keySet(), "the table holds exactly the acknowledged procedures");
      for (ProcedureInfo info : all) {
        assertEquals(ProcedureState.SUCCESS, info.state(), info.toString());
      }
      assertTrue(killedTerms.get(1) > killedTerms.get(0), "two different leaders died");
      assertJournal(cluster.world, byId.size());
      cluster.awaitSameTables();
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Sends a round's submissions of a node thread at once (many in flight, as a busy ConfigNode
   * would), then waits for each; a failed one is submitted again with its nonce.
   */
  private void submitRound(TestCluster cluster, int thread, int from, int to) {
    Map<Integer, CompletableFuture<Long>> sent = new HashMap<>();
    for (int i = from; i < to; i++) {
      try {
        sent.put(i, pick(cluster, thread == 0).submit(new Work(name(thread, i)), nonce(thread, i)));
      } catch (RuntimeException nodeClosed) {
        sent.put(i, CompletableFuture.failedFuture(nodeClosed));
      }
    }
    for (Map.Entry<Integer, CompletableFuture<Long>> e : sent.entrySet()) {
      try {
        acknowledge(nonce(thread, e.getKey()), e.getValue().get(30, TimeUnit.SECONDS));
      } catch (Exception failed) {
        submit(cluster, null, thread, e.getKey());
      }
    }
  }

  private static NonceKey nonce(int thread, int i) {
    return new NonceKey(thread + 1, i);
  }

  private static String name(int thread, int i) {
    return "c" + thread + "-" + i;
  }

  private void acknowledge(NonceKey nonce, long id) {
    acknowledged.computeIfAbsent(nonce, k -> ConcurrentHashMap.newKeySet()).add(id);
  }

  /** Submits nonce (thread, i) until a node or the client acknowledges it; records the id. */
  private void submit(TestCluster cluster, ProcedureClient client, int thread, int i) {
    NonceKey nonce = nonce(thread, i);
    String name = name(thread, i);
    Supplier<Work> work = () -> new Work(name);
    long deadline = System.nanoTime() + SUBMIT_DEADLINE.toNanos();
    while (true) {
      try {
        long id;
        if (thread == CLIENT_THREAD) {
          id = client.submit(work.get(), nonce);
        } else {
          id = pick(cluster, thread == 0).submit(work.get(), nonce).get(30, TimeUnit.SECONDS);
        }
        acknowledge(nonce, id);
        return;
      } catch (Exception e) {
        // a node died under the call, or no leader yet: try again, as a client would
        if (System.nanoTime() > deadline) {
          throw new AssertionError(name + " was never acknowledged", e);
        }
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
          throw new AssertionError(name + " interrupted", e);
        }
      }
    }
  }

  /** The running leader (thread 0) or a follower (thread 1); any node while there is none. */
  private static ProcedureNode<Work.Env> pick(TestCluster cluster, boolean leader) {
    List<ProcedureNode<Work.Env>> nodes = cluster.running();
    for (ProcedureNode<Work.Env> n : nodes) {
      if (n.isLeader() == leader) {
        return n;
      }
    }
    return nodes.get(ThreadLocalRandom.current().nextInt(nodes.size()));
  }

  /**
   * Per procedure: the steps in order PREPARE, APPLY, COMMIT, all by one procedure (one id per
   * name); terms never go back; a step is recorded again only in a later term (a leadership change,
   * here a kill, interrupted it between running and being persisted), so at most once per
   * leadership change. The kills are not the only possible changes: a busy machine may also miss a
   * heartbeat, so the repeats are bounded by the terms seen, not by the kills.
   */
  private static void assertJournal(World world, int procedures) {
    List<World.Step> journal = world.steps();
    long terms = journal.stream().map(World.Step::term).distinct().count();
    Map<String, List<World.Step>> byName = new HashMap<>();
    for (World.Step s : journal) {
      byName.computeIfAbsent(s.name(), k -> new ArrayList<>()).add(s);
    }
    assertEquals(procedures, byName.size());
    for (Map.Entry<String, List<World.Step>> e : byName.entrySet()) {
      List<World.Step> steps = e.getValue();
      assertEquals(1, steps.stream().map(World.Step::procId).distinct().count(), e.toString());
      List<String> distinct = new ArrayList<>();
      int repeats = 0;
      for (int i = 0; i < steps.size(); i++) {
        World.Step s = steps.get(i);
        if (i > 0) {
          World.Step prev = steps.get(i - 1);
          assertTrue(s.term() >= prev.term(), "term went back: " + steps);
          if (s.state().equals(prev.state())) {
            assertTrue(s.term() > prev.term(), "step ran twice in one term: " + steps);
            repeats++;
            continue;
          }
        }
        distinct.add(s.state());
      }
      assertEquals(List.of("PREPARE", "APPLY", "COMMIT"), distinct, e.toString());
      assertTrue(repeats < terms, "more repeats than leadership changes: " + steps);
    }
  }
}
