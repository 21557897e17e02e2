package dev.baton.confignode.node;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.faults.StateHolds;
import dev.baton.confignode.testing.RawHttp;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.consensus.spi.LoopbackPorts;
import dev.baton.procedure.ProcedureInfo;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A ConfigNodeServer's own life cycle: start-up registration of DataNodes, a failed start. */
@Timeout(120)
class ConfigNodeServerTest {
  @TempDir Path dir;

  @Test
  void afterStartUpRegistrationEveryNodeAnswersItsFirstReadAtOnce() throws Exception {
    try (SimCluster cluster = SimCluster.start(dir, 1, 2)) {
      ConfigNodeServer node = cluster.leader();
      // One read, no retry: a registration submitted into the initial election would leave the
      // node's Raft client stuck, and this read would time out (after the request timeout).
      List<ProcedureInfo> all =
          node.node()
              .list()
              .get(SimCluster.RAFT.requestTimeout().toSeconds() + 10, TimeUnit.SECONDS);
      assertEquals(2, all.stream().filter(p -> p.type().equals("AddDataNode")).count());
      RawHttp.Reply r = new RawHttp(SimCluster.http(node)).get("/api/procedures");
      assertEquals(200, r.status(), r.body());
    }
  }

  @Test
  void aFailedStartClosesTheRaftPeerItStarted() throws Exception {
    int raftPort = LoopbackPorts.free();
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      ConfigNodeServer server =
          new ConfigNodeServer(
              new ConfigNodeServer.Config(
                  "a",
                  Map.of("a", new InetSocketAddress("127.0.0.1", raftPort)),
                  dir,
                  taken.getLocalPort(),
                  List.of(),
                  SimCluster.RAFT));
      IOException e = assertThrows(IOException.class, server::start);
      assertTrue(e.getMessage() != null, e.toString());
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> bindable(raftPort));
  }

  @Test
  void holdsAtStartAreSetBeforeTheNodeRunsAndNeedFaultsOn() {
    Map<String, InetSocketAddress> peers = Map.of("a", new InetSocketAddress("127.0.0.1", 1));
    List<StateHolds.Hold> holds = List.of(new StateHolds.Hold("RemoveDataNode", "MIGRATE"));
    ConfigNodeServer server =
        new ConfigNodeServer(
            new ConfigNodeServer.Config(
                "a", peers, dir, 0, List.of(), SimCluster.RAFT, true, holds));
    try {
      assertTrue(server.holds().isEnabled());
      assertEquals(holds, server.holds().holds());
    } finally {
      server.close();
    }
    IllegalArgumentException off =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                new ConfigNodeServer.Config(
                    "a", peers, dir, 0, List.of(), SimCluster.RAFT, false, holds));
    assertTrue(off.getMessage().contains("need faults on"), off.getMessage());
  }

  static boolean bindable(int port) {
    try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException inUse) {
      return false;
    }
  }
}
