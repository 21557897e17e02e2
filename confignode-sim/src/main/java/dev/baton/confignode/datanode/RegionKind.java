package dev.baton.confignode.datanode;

/** What a region holds: schema (metadata of time series) or data (their points). */
public enum RegionKind {
  SCHEMA,
  DATA
}
