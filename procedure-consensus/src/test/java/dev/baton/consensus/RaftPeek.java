package dev.baton.consensus;

import java.util.OptionalLong;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;

/** Benchmark access to a node's Raft division (package-private in the library). */
public final class RaftPeek {
  private RaftPeek() {}

  /**
   * When (epoch millis) this follower last heard from {@code leaderId}, if it follows that leader
   * now; empty otherwise.
   */
  public static OptionalLong lastHeardFrom(ProcedureNode<?> follower, String leaderId) {
    return follower
        .division()
        .map(d -> d.getInfo().getRoleInfoProto())
        .filter(RoleInfoProto::hasFollowerInfo)
        .map(r -> r.getFollowerInfo().getLeaderInfo())
        .filter(l -> l.getId().getId().toStringUtf8().equals(leaderId))
        .map(l -> OptionalLong.of(System.currentTimeMillis() - l.getLastRpcElapsedTimeMs()))
        .orElse(OptionalLong.empty());
  }
}
