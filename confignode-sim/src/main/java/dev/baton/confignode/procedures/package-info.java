/**
 * The ConfigNode procedures (create and delete a database, migrate a region, add and remove a
 * DataNode, no-op and sleep) and the environment they run in ({@link
 * dev.baton.confignode.procedures.ConfigNodeEnv}). Uses {@code meta}, {@code datanode} (its
 * client), {@code faults} and {@code waits}.
 */
package dev.baton.confignode.procedures;
