/**
 * The cluster metadata the ConfigNode procedures keep in the replicated state (databases, regions,
 * DataNodes). Uses {@code datanode} for region kinds only.
 */
package dev.baton.confignode.meta;
