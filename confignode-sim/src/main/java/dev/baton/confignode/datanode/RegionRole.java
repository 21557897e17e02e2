package dev.baton.confignode.datanode;

/** The role of one replica in its region's consensus group. */
public enum RegionRole {
  LEADER,
  FOLLOWER
}
