package dev.baton.confignode.hosts;

import java.util.Locale;

/**
 * The network partitions Baton is tested with, each described in terms of who it cuts: the Raft
 * leader, the other ConfigNodes (followers) and the DataNodes of a {@link PartitionTargets}. {@link
 * NetworkFault#start} puts one in place.
 */
public enum PartitionKind {
  /** One follower ConfigNode cut from every other host (ConfigNodes and DataNodes). */
  ISOLATE_NODE(false, 3, "a follower cut from every other host"),
  /** The leader cut from every other ConfigNode; it still reaches every DataNode. */
  ISOLATE_LEADER(true, 3, "the leader cut from the other ConfigNodes, still reaching DataNodes"),
  /**
   * The ConfigNodes split 2 | 3, the leader and one follower in the minority; every DataNode still
   * reaches both sides.
   */
  SPLIT_LEADER_MINORITY(true, 5, "ConfigNodes split 2 | 3 with the leader in the 2"),
  /**
   * A bridge: the leader and one follower cut from each other, both still reaching a third
   * ConfigNode, the bridge.
   */
  BRIDGE(false, 3, "the leader and a follower cut from each other, both reaching a third"),
  /**
   * One-way loss: what the leader sends the other ConfigNodes is dropped, what they send it still
   * arrives (a blackhole route in the leader's namespace only).
   */
  ONE_WAY(true, 3, "what the leader sends the other ConfigNodes is dropped, not the reverse"),
  /**
   * The leader cut from the other ConfigNodes and healed again, every {@link
   * NetworkFault#FLAP_PERIOD}, until healed for good.
   */
  FLAPPING(false, 3, "the leader cut from the other ConfigNodes and healed, in turn"),
  /** One DataNode cut from the leader only; it still reaches every other ConfigNode. */
  DATANODE_FROM_LEADER(false, 3, "a DataNode cut from the leader only");

  private final boolean deposesLeader;
  private final int minConfigNodes;
  private final String description;

  PartitionKind(boolean deposesLeader, int minConfigNodes, String description) {
    this.deposesLeader = deposesLeader;
    this.minConfigNodes = minConfigNodes;
    this.description = description;
  }

  /**
   * Whether the leader is cut from a majority for as long as the partition lasts, so a new leader
   * must be elected on the other side and the old one must step down.
   */
  public boolean deposesLeader() {
    return deposesLeader;
  }

  /** The fewest ConfigNodes the partition needs. */
  public int minConfigNodes() {
    return minConfigNodes;
  }

  /** Whether it cuts a DataNode, so it needs at least one. */
  public boolean needsDataNode() {
    return this == DATANODE_FROM_LEADER;
  }

  /** What it cuts, in a few words. */
  public String description() {
    return description;
  }

  /** Its name as a command-line value: lower case with dashes ({@code split-leader-minority}). */
  public String flagValue() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
