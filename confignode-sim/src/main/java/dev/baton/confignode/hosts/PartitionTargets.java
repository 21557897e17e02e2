package dev.baton.confignode.hosts;

import java.util.List;
import java.util.stream.Stream;

/**
 * Who a partition is laid out around, by host name: the ConfigNode leading when it starts, the
 * other ConfigNodes (in a fixed order: the first is the one a kind picks when it needs a follower)
 * and the DataNodes.
 *
 * @param leader the leader's host
 * @param followers the other ConfigNodes' hosts
 * @param dataNodes the DataNodes' hosts
 */
public record PartitionTargets(String leader, List<String> followers, List<String> dataNodes) {
  public PartitionTargets {
    followers = List.copyOf(followers);
    dataNodes = List.copyOf(dataNodes);
    if (followers.contains(leader)) {
      throw new IllegalArgumentException("the leader " + leader + " is among its followers");
    }
  }

  /** Every ConfigNode host, the leader first. */
  public List<String> configNodes() {
    return Stream.concat(Stream.of(leader), followers.stream()).toList();
  }

  /** Whether {@code kind} can be laid out here. */
  public boolean fits(PartitionKind kind) {
    return configNodes().size() >= kind.minConfigNodes()
        && (!kind.needsDataNode() || !dataNodes.isEmpty());
  }
}
