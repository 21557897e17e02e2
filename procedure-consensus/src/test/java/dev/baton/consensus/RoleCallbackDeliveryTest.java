package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.consensus.proto.ActionResult;
import dev.baton.consensus.proto.OperatorActionEntry;
import dev.baton.procedure.ProcedureCodec;
import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.store.StoreRecord;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Ratis makes its role callbacks under its server's lock (the one votes and appends need): the
 * state machine returns from them at once, whatever the node's handler is waiting for, and the
 * handler hears the events later in Ratis' order on a thread of its own.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RoleCallbackDeliveryTest {
  private static final RaftGroupMemberId SELF =
      RaftGroupMemberId.valueOf(RaftPeerId.valueOf("n1"), RaftGroupId.randomId());

  @Test
  void callbacksReturnWhileTheHandlerWaitsAndArriveInRatisOrder() throws Exception {
    ProcedureStateMachine sm =
        new ProcedureStateMachine(
            "n1",
            new EntryAdmission(
                ClientId.randomId(), 0, new ProcedureCodec(new ProcedureRegistry())));
    Blocking handler = new Blocking();
    sm.setListener(handler);
    Thread ratis = Thread.currentThread();

    // the handler blocks on the first event; every later callback must still return
    sm.notifyLeaderChanged(SELF, RaftPeerId.valueOf("n2"));
    sm.notifyLeaderChanged(SELF, SELF.getPeerId());
    sm.notifyLeaderReady();
    sm.notifyNotLeader(List.of());
    assertTrue(handler.firstEntered.await(10, TimeUnit.SECONDS), "no event reached the handler");
    assertEquals(List.of("changed:false"), handler.events, "the handler ran ahead of its release");

    handler.release.countDown();
    assertTrue(handler.allSeen.await(10, TimeUnit.SECONDS), "events lost: " + handler.events);
    assertEquals(
        List.of("changed:false", "changed:true", "ready", "not-leader"),
        List.copyOf(handler.events));
    handler.threads.forEach(t -> assertNotSame(ratis, t, "an event ran on Ratis' thread"));
    sm.close();
  }

  /** A handler whose first event waits for {@link #release}. */
  private static final class Blocking implements ProcedureStateMachine.Listener {
    final CountDownLatch firstEntered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final CountDownLatch allSeen = new CountDownLatch(4);
    final List<String> events = new CopyOnWriteArrayList<>();
    final List<Thread> threads = new CopyOnWriteArrayList<>();

    private void seen(String event) {
      threads.add(Thread.currentThread());
      events.add(event);
      allSeen.countDown();
      if (firstEntered.getCount() > 0) {
        firstEntered.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    @Override
    public void leaderChanged(boolean self) {
      seen("changed:" + self);
    }

    @Override
    public void leaderReady() {
      seen("ready");
    }

    @Override
    public void notLeader() {
      seen("not-leader");
    }

    @Override
    public void submitted(long index, StoreRecord record) {}

    @Override
    public CompletableFuture<Boolean> abortRequested(long procId) {
      return null;
    }

    @Override
    public CompletableFuture<ActionResult> actionRequested(long index, OperatorActionEntry action) {
      return null;
    }
  }
}
