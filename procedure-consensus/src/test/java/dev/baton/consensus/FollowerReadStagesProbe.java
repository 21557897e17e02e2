package dev.baton.consensus;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.impl.ClientProtoUtils;
import org.apache.ratis.proto.RaftProtos.ReadIndexRequestProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * Splits a follower's linearizable read into stages, warm, on an in-process 3-node cluster over
 * mutual TLS (as the bench runs it): the whole read on the leader and on a follower through {@link
 * LocalSubmitter#read}, the follower's read index round trip to the leader alone (Ratis' server
 * RPC, the same call the read makes), and a stale read on the follower (the same query and reply
 * path without the read index), and the follower's read by Baton's own read index call ({@link
 * FollowerReads}). Prints p50, p90 and mean of each. Run: {@code mvn -B -q -pl procedure-consensus
 * -am test-compile exec:java@read-stages}.
 */
public final class FollowerReadStagesProbe {
  /** Warm-up calls of each stage: the bench found a follower's read warm after about 3,000. */
  static final int WARMUP = 4000;

  /** Measured calls of each stage, in rounds interleaving the stages. */
  static final int CALLS = 2000;

  /** Calls of one stage in a row before the next stage's. */
  static final int ROUND = 100;

  /** Longest a read by the leader's read index may take (far above any read of an idle cluster). */
  static final Duration READ_TIMEOUT = Duration.ofSeconds(10);

  private FollowerReadStagesProbe() {}

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("read-stages");
    try (TestCluster cluster = new TestCluster(dir, 3)) {
      for (String id : cluster.peers.keySet()) {
        cluster.start(id, b -> b.tls(MembershipChangeTest.tls(id)));
      }
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      ProcedureNode<Work.Env> follower = cluster.follower();
      long id = leader.submit(new Work("probe"), null).get(30, TimeUnit.SECONDS);
      ProcedureNodeTest.awaitFinished(leader, id);
      byte[] query = ProcedureClient.getQuery(id).toByteArray();
      RaftServer fs = follower.peer().server();
      RaftServer.Division fd =
          fs.getDivision(follower.peer().division().orElseThrow().getMemberId().getGroupId());
      RaftPeerId leaderId = fd.getInfo().getLeaderId();

      Map<String, Callable<Object>> stages = new LinkedHashMap<>();
      stages.put(
          "leader read", () -> leader.localSubmitter().read(ProcedureClient.getQuery(id)).get());
      stages.put(
          "follower read",
          () -> follower.localSubmitter().read(ProcedureClient.getQuery(id)).get());
      stages.put(
          "follower read by Baton's read index",
          () -> follower.followerReads().read(ProcedureClient.getQuery(id), READ_TIMEOUT).get());
      stages.put(
          "follower read index round trip",
          () -> fs.getServerRpc().async().readIndexAsync(readIndex(fd, leaderId, query)).get());
      stages.put(
          "follower stale read",
          () ->
              fs.submitClientRequestAsync(
                      request(fd, query, RaftClientRequest.staleReadRequestType(0)))
                  .get());
      Map<String, double[]> times = new LinkedHashMap<>();
      stages.keySet().forEach(k -> times.put(k, new double[CALLS]));
      for (int i = 0; i < WARMUP / ROUND; i++) {
        for (Callable<Object> c : stages.values()) {
          for (int j = 0; j < ROUND; j++) {
            c.call();
          }
        }
      }
      for (int r = 0; r < CALLS / ROUND; r++) {
        for (Map.Entry<String, Callable<Object>> e : stages.entrySet()) {
          double[] t = times.get(e.getKey());
          for (int j = 0; j < ROUND; j++) {
            long t0 = System.nanoTime();
            e.getValue().call();
            t[r * ROUND + j] = (System.nanoTime() - t0) / 1e3;
          }
        }
      }
      for (Map.Entry<String, double[]> e : times.entrySet()) {
        double[] t = e.getValue();
        double mean = Arrays.stream(t).average().orElse(0);
        Arrays.sort(t);
        System.out.printf(
            "%-32s p50 %6.0f us  p90 %6.0f us  mean %6.0f us%n",
            e.getKey(), t[CALLS / 2], t[CALLS * 9 / 10], mean);
      }
    }
  }

  private static RaftClientRequest request(
      RaftServer.Division d, byte[] query, RaftClientRequest.Type type) {
    return RaftClientRequest.newBuilder()
        .setClientId(org.apache.ratis.protocol.ClientId.randomId())
        .setServerId(d.getId())
        .setGroupId(d.getMemberId().getGroupId())
        .setCallId(1)
        .setMessage(Message.valueOf(ByteString.copyFrom(query)))
        .setType(type)
        .build();
  }

  private static ReadIndexRequestProto readIndex(
      RaftServer.Division d, RaftPeerId leaderId, byte[] query) {
    RaftClientRequest r = request(d, query, RaftClientRequest.readRequestType());
    return ReadIndexRequestProto.newBuilder()
        .setServerRequest(
            ClientProtoUtils.toRaftRpcRequestProtoBuilder(
                d.getId().toByteString(), leaderId, d.getMemberId().getGroupId()))
        .setClientRequest(ClientProtoUtils.toRaftClientRequestProto(r))
        .build();
  }
}
