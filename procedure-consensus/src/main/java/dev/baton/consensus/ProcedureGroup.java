package dev.baton.consensus;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;

/** The one Raft group of a procedure cluster, built from the peer map every member is given. */
final class ProcedureGroup {
  /** Every cluster uses the same group id, derived from this name. */
  static final String GROUP_NAME = "baton-procedures";

  static final RaftGroupId GROUP_ID =
      RaftGroupId.valueOf(UUID.nameUUIDFromBytes(GROUP_NAME.getBytes(StandardCharsets.UTF_8)));

  private ProcedureGroup() {}

  static RaftGroup of(Map<String, InetSocketAddress> peers) {
    if (peers.isEmpty()) {
      throw new IllegalArgumentException("a procedure cluster needs at least one peer");
    }
    List<RaftPeer> list = new ArrayList<>();
    for (Map.Entry<String, InetSocketAddress> e : peers.entrySet()) {
      InetSocketAddress a = e.getValue();
      list.add(
          RaftPeer.newBuilder()
              .setId(e.getKey())
              .setAddress(a.getHostString() + ":" + a.getPort())
              .build());
    }
    return RaftGroup.valueOf(GROUP_ID, list);
  }

  static int port(Map<String, InetSocketAddress> peers, String nodeId) {
    return peers.get(nodeId).getPort();
  }

  /** Whether {@code dir} already holds this group's Raft storage (restart, not first start). */
  static boolean hasStorage(Path dir) throws IOException {
    Path groupDir = dir.resolve(GROUP_ID.getUuid().toString());
    if (!Files.isDirectory(groupDir)) {
      return false;
    }
    try (Stream<Path> files = Files.list(groupDir)) {
      return files.findAny().isPresent();
    }
  }
}
