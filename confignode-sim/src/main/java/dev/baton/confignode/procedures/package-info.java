/**
 * The ConfigNode procedures (create and delete a database, migrate a region, add and remove a
 * DataNode, add, remove and replace a ConfigNode in the Raft group, no-op and sleep, and the demo
 * type that deadlocks, LockPair) and the environment they run in ({@link
 * dev.baton.confignode.procedures.ConfigNodeEnv}). Uses {@code meta}, {@code datanode} (its
 * client), {@code faults} and {@code waits}, and of procedure-consensus the membership of the Raft
 * group.
 */
package dev.baton.confignode.procedures;
