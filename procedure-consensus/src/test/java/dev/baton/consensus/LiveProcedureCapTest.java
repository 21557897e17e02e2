package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.NonceKey;
import dev.baton.procedure.ProcedureState;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cap on unfinished root procedures: checked when a submission is applied, from any node and
 * from an outside client (whose entry the leader stamps with its cap), never for a repeated nonce.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LiveProcedureCapTest {
  private static final int CAP = 3;
  private static final long NONCE_GROUP = 77;
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  private static LiveProcedureCapException refusal(Throwable e) {
    Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
    LiveProcedureCapException refused = assertInstanceOf(LiveProcedureCapException.class, cause);
    assertTrue(refused.getMessage().contains("cap is " + CAP), refused.getMessage());
    return refused;
  }

  @Test
  void submissionsPastTheCapAreRefusedUntilAProcedureFinishes() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3, b -> b.maxLiveProcedures(CAP)).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      List<CountDownLatch> gates = new ArrayList<>();
      List<Long> held = new ArrayList<>();
      for (int i = 0; i < CAP; i++) {
        gates.add(cluster.world.hold("held" + i + ":PREPARE"));
        held.add(
            leader
                .submit(new Work("held" + i), new NonceKey(NONCE_GROUP, i))
                .get(WAIT.toSeconds(), TimeUnit.SECONDS));
      }

      ProcedureNode<Work.Env> follower = cluster.follower();
      refusal(
          assertThrows(
              ExecutionException.class,
              () ->
                  leader
                      .submit(new Work("over1"), new NonceKey(NONCE_GROUP, 100))
                      .get(WAIT.toSeconds(), TimeUnit.SECONDS)));
      refusal(
          assertThrows(
              ExecutionException.class,
              () ->
                  follower
                      .submit(new Work("over2"), new NonceKey(NONCE_GROUP, 101))
                      .get(WAIT.toSeconds(), TimeUnit.SECONDS)));
      try (ProcedureClient client = ProcedureClient.connect(cluster.peers, Work.registry())) {
        refusal(
            assertThrows(
                IOException.class,
                () -> client.submit(new Work("over3"), new NonceKey(NONCE_GROUP, 102))));
      }
      // a repeated nonce is answered with its procedure, cap or not
      assertEquals(
          held.get(0),
          follower
              .submit(new Work("held0"), new NonceKey(NONCE_GROUP, 0))
              .get(WAIT.toSeconds(), TimeUnit.SECONDS));
      // the refused submissions created nothing
      assertEquals(CAP, leader.list().get(WAIT.toSeconds(), TimeUnit.SECONDS).size());

      gates.get(0).countDown();
      Awaitility.await()
          .atMost(WAIT)
          .until(
              () ->
                  leader
                      .getInfo(held.get(0))
                      .get()
                      .map(i -> i.state() == ProcedureState.SUCCESS)
                      .orElse(false));
      long next =
          follower
              .submit(new Work("after"), new NonceKey(NONCE_GROUP, 103))
              .get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertTrue(next > held.get(CAP - 1), "id " + next);
      gates.forEach(CountDownLatch::countDown);
    }
  }
}
