package dev.baton.consensus;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;

/**
 * The one Raft group of a procedure cluster, built from the cluster id and the peer map every
 * member is given. The group id is derived from the cluster id, so members (and clients) of two
 * clusters never talk to each other's group by mistake: Ratis refuses a request for another group.
 */
final class ProcedureGroup {
  /** The cluster id of a cluster that names none; its group id is the one every cluster had. */
  static final String DEFAULT_CLUSTER_ID = "baton-procedures";

  /** The longest cluster id. */
  static final int CLUSTER_ID_MAX_LENGTH = 64;

  private static final Pattern CLUSTER_ID =
      Pattern.compile("[A-Za-z0-9._-]{1," + CLUSTER_ID_MAX_LENGTH + "}");

  private ProcedureGroup() {}

  /** The Raft group id of the cluster {@code clusterId}. */
  static RaftGroupId groupId(String clusterId) {
    return RaftGroupId.valueOf(
        UUID.nameUUIDFromBytes(checkClusterId(clusterId).getBytes(StandardCharsets.UTF_8)));
  }

  /** {@code clusterId} if it is one, else an error that says what one is. */
  static String checkClusterId(String clusterId) {
    if (clusterId == null || !CLUSTER_ID.matcher(clusterId).matches()) {
      throw new IllegalArgumentException(
          "a cluster id is 1 to "
              + CLUSTER_ID_MAX_LENGTH
              + " characters [A-Za-z0-9._-]: "
              + clusterId);
    }
    return clusterId;
  }

  static RaftGroup of(String clusterId, Map<String, InetSocketAddress> peers) {
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
    return RaftGroup.valueOf(groupId(clusterId), list);
  }

  static int port(Map<String, InetSocketAddress> peers, String nodeId) {
    return peers.get(nodeId).getPort();
  }

  /**
   * Whether {@code dir} already holds the Raft storage of {@code group} (a restart, not a first
   * start).
   *
   * @throws IOException if it holds another group's storage: the node was started with the cluster
   *     id of another cluster than the one its storage belongs to
   */
  static boolean hasStorage(Path dir, RaftGroupId group, String clusterId) throws IOException {
    Path groupDir = dir.resolve(group.getUuid().toString());
    if (Files.isDirectory(groupDir)) {
      try (Stream<Path> files = Files.list(groupDir)) {
        if (files.findAny().isPresent()) {
          return true;
        }
      }
    }
    if (Files.isDirectory(dir)) {
      try (Stream<Path> entries = Files.list(dir)) {
        Optional<Path> other =
            entries.filter(p -> isGroupDir(p) && !p.equals(groupDir)).findFirst();
        if (other.isPresent()) {
          throw new IOException(
              dir
                  + " holds the Raft storage of another cluster (group "
                  + other.get().getFileName()
                  + "), not of cluster id "
                  + clusterId
                  + " (group "
                  + group.getUuid()
                  + "): start the node with its cluster's id, or give it an empty directory");
        }
      }
    }
    return false;
  }

  private static boolean isGroupDir(Path p) {
    if (!Files.isDirectory(p)) {
      return false;
    }
    try {
      UUID.fromString(p.getFileName().toString());
      return true;
    } catch (IllegalArgumentException notAGroup) {
      return false;
    }
  }
}
