package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.ProcedureState;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A submission is answered as soon as its entry is applied: neither the leader's adoption of the
 * procedure (decoding, scheduling) nor its first step delays the reply.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SubmitReplyTest {
  /** Far below the request timeout: a reply that waited for the gates would miss it. */
  static final long REPLY_WAIT_SECONDS = 5;

  @TempDir Path dir;

  @Test
  void theReplyWaitsNeitherForTheAdoptionNorForTheFirstStep() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      CountDownLatch decode = new CountDownLatch(1);
      Work.DECODE_GATES.put("slow-to-adopt", decode);
      CountDownLatch step = cluster.world.hold("held:PREPARE");
      try {
        // the first step of "held" blocks its worker; the reply came before it
        long held = leader.submit(new Work("held"), null).get(REPLY_WAIT_SECONDS, TimeUnit.SECONDS);
        assertTrue(cluster.world.reached.get("held:PREPARE").await(30, TimeUnit.SECONDS));
        // the adoption of "slow-to-adopt" blocks in decoding; the reply does not wait for it
        long slow =
            leader
                .submit(new Work("slow-to-adopt"), null)
                .get(REPLY_WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals(List.of(), cluster.world.steps("slow-to-adopt"), "adopted before the gate");
        assertEquals(List.of(), cluster.world.steps("held"), "held step finished before the gate");

        decode.countDown();
        step.countDown();
        for (long id : List.of(slow, held)) {
          assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(leader, id).state());
        }
      } finally {
        Work.DECODE_GATES.remove("slow-to-adopt");
        decode.countDown();
        step.countDown();
      }
    }
  }
}
