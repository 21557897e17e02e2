package dev.baton.confignode.datanode;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The body of a command sent to a DataNode. Every body carries the {@link CommandContext} fields
 * ({@code term}, {@code procId}, {@code step}) flat, next to the command's own arguments; all of
 * them are required unless marked optional. The compact constructors validate, so a body that binds
 * is a valid command.
 */
sealed interface DataNodeRequest {
  long term();

  long procId();

  String step();

  /** Does nothing but pass fencing and the ledger; a liveness check that also carries a term. */
  record Ping(
      @JsonProperty(required = true) long term,
      @JsonProperty(required = true) long procId,
      @JsonProperty(required = true) String step)
      implements DataNodeRequest {
    public Ping {
      Checks.context(term, procId, step);
    }
  }

  /**
   * Creates a replica; {@code role} is optional (default {@link RegionRole#FOLLOWER}). A replica
   * that already exists for the same database and kind is a success that changes nothing.
   */
  record CreateRegion(
      @JsonProperty(required = true) long term,
      @JsonProperty(required = true) long procId,
      @JsonProperty(required = true) String step,
      @JsonProperty(required = true) int regionId,
      @JsonProperty(required = true) String database,
      @JsonProperty(required = true) RegionKind kind,
      RegionRole role)
      implements DataNodeRequest {
    public CreateRegion {
      Checks.context(term, procId, step);
      Checks.nonNegative("regionId", regionId);
      Checks.notBlank("database", database);
      Checks.notNull("kind", kind);
      role = role == null ? RegionRole.FOLLOWER : role;
    }
  }

  /** Deletes a replica; deleting one that is not here is a success that changes nothing. */
  record DeleteRegion(
      @JsonProperty(required = true) long term,
      @JsonProperty(required = true) long procId,
      @JsonProperty(required = true) String step,
      @JsonProperty(required = true) int regionId)
      implements DataNodeRequest {
    public DeleteRegion {
      Checks.context(term, procId, step);
      Checks.nonNegative("regionId", regionId);
    }
  }

  /** Makes a replica leader or follower of its region (leader switch); it must exist here. */
  record SetRegionRole(
      @JsonProperty(required = true) long term,
      @JsonProperty(required = true) long procId,
      @JsonProperty(required = true) String step,
      @JsonProperty(required = true) int regionId,
      @JsonProperty(required = true) RegionRole role)
      implements DataNodeRequest {
    public SetRegionRole {
      Checks.context(term, procId, step);
      Checks.nonNegative("regionId", regionId);
      Checks.notNull("role", role);
    }
  }

  /**
   * Catches a replica up to {@code dataVersion} (the version of the replica it copies from); it
   * must exist here. A replica never goes back: a lower version changes nothing.
   */
  record SyncRegion(
      @JsonProperty(required = true) long term,
      @JsonProperty(required = true) long procId,
      @JsonProperty(required = true) String step,
      @JsonProperty(required = true) int regionId,
      @JsonProperty(required = true) long dataVersion)
      implements DataNodeRequest {
    public SyncRegion {
      Checks.context(term, procId, step);
      Checks.nonNegative("regionId", regionId);
      Checks.nonNegative("dataVersion", dataVersion);
    }
  }

  /** Drops the DataNode's cached schema of a database; recorded in the invalidation log. */
  record InvalidateCache(
      @JsonProperty(required = true) long term,
      @JsonProperty(required = true) long procId,
      @JsonProperty(required = true) String step,
      @JsonProperty(required = true) String database)
      implements DataNodeRequest {
    public InvalidateCache {
      Checks.context(term, procId, step);
      Checks.notBlank("database", database);
    }
  }
}
