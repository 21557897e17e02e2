package dev.baton.confignode.datanode;

/** One entry of the cache-invalidation log: a database's schema cache was dropped. */
public record CacheInvalidation(String database, long term, long procId, String step, long time) {}
