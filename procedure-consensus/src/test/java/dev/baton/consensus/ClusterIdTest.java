package dev.baton.consensus;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.consensus.spi.LoopbackPorts;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The Raft group derives from the cluster id: two clusters never mix, old storage stays valid. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusterIdTest {
  /** The group id every cluster had before cluster ids; existing storage is kept under it. */
  static final UUID EARLIER_GROUP = UUID.fromString("60a05e2f-3c39-36bf-a2b5-6ae26213cb91");

  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);

  /** How long the odd node is watched once the others committed. */
  static final Duration WATCH = Duration.ofSeconds(3);

  @TempDir Path dir;
  private final Map<String, InetSocketAddress> peers = new LinkedHashMap<>();
  private final List<ProcedureNode<Work.Env>> nodes = new ArrayList<>();

  @AfterEach
  void closeNodes() {
    nodes.forEach(ProcedureNode::close);
  }

  private ProcedureNode<Work.Env> start(String id, String clusterId) throws IOException {
    ProcedureNode<Work.Env> node =
        ProcedureNode.<Work.Env>builder()
            .nodeId(id)
            .clusterId(clusterId)
            .peers(peers)
            .storageDir(dir.resolve(id))
            .registry(Work.registry())
            .environment(leader -> new Work.Env(new World(), leader))
            .requestTimeout(REQUEST_TIMEOUT)
            .build();
    node.start();
    nodes.add(node);
    return node;
  }

  @Test
  void theDefaultClusterIdKeepsTheEarlierGroup() {
    assertEquals(EARLIER_GROUP, ProcedureNode.raftGroupId(ProcedureNode.DEFAULT_CLUSTER_ID));
    assertTrue(!EARLIER_GROUP.equals(ProcedureNode.raftGroupId("prod-1")));
  }

  @Test
  void aClusterIdIsCheckedWhenGiven() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ProcedureNode.<Work.Env>builder().clusterId("two words"));
    assertTrue(e.getMessage().contains("[A-Za-z0-9._-]"), e.getMessage());
  }

  @Test
  void aNodeGivenAnotherClustersIdNeitherJoinsNorReads() throws Exception {
    for (String id : List.of("a", "b", "c")) {
      peers.put(id, new InetSocketAddress("127.0.0.1", LoopbackPorts.free()));
    }
    ProcedureNode<Work.Env> odd = start("c", "other");
    ProcedureNode<Work.Env> a = start("a", "main");
    ProcedureNode<Work.Env> b = start("b", "main");
    ProcedureNode<Work.Env> leader =
        await()
            .atMost(TestCluster.ELECTION_WAIT)
            .until(
                () -> a.role() == NodeRole.LEADER_RUNNING ? a : b,
                n -> n.role() == NodeRole.LEADER_RUNNING);
    long id = leader.submit(new Work("w"), null).get(30, TimeUnit.SECONDS);

    try (ProcedureClient same = ProcedureClient.connect("main", peers, Work.registry())) {
      assertEquals(id, same.getInfo(id).orElseThrow().procId());
    }
    try (ProcedureClient other =
        ProcedureClient.builder()
            .clusterId("other")
            .peers(peers)
            .registry(Work.registry())
            .settings(RaftSettings.defaults().withRequestTimeout(REQUEST_TIMEOUT))
            .connect()) {
      assertThrows(IOException.class, () -> other.getInfo(id));
    }
    await()
        .during(WATCH)
        .atMost(WATCH.multipliedBy(2))
        .until(
            () ->
                !odd.isLeader()
                    && odd.leaderId().isEmpty()
                    && odd.stateMachine().getLastAppliedTermIndex().getIndex() < 0);
  }

  @Test
  void aNodeDoesNotStartOnTheStorageOfAnotherCluster() throws Exception {
    peers.put("a", new InetSocketAddress("127.0.0.1", LoopbackPorts.free()));
    start("a", "first").close();
    nodes.clear();
    IOException e = assertThrows(IOException.class, () -> start("a", "second"));
    assertTrue(e.getMessage().contains("another cluster"), e.getMessage());
  }
}
