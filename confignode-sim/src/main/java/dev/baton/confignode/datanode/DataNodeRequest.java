package dev.baton.confignode.datanode;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The body of a command sent to a DataNode. Every body carries the {@link CommandContext} fields
 * ({@code term}, {@code procId}, {@code step}, optional {@code seq}) flat, next to the command's
 * own arguments; all of them are required unless marked optional. The compact constructors
 * validate, so a body that binds is a valid command. Each record also has a constructor without
 * {@code seq} (0).
 */
sealed interface DataNodeRequest {
  long term();

  long procId();

  String step();

  /** {@link CommandContext#seq()}; optional in the body (absent: 0), never null once bound. */
  Long seq();

  /** Does nothing but pass fencing and the ledger; a liveness check that also carries a term. */
  record Ping(
      @JsonProperty(required = true) long term,
      @JsonProperty(required = true) long procId,
      @JsonProperty(required = true) String step,
      Long seq)
      implements DataNodeRequest {
    Ping(long term, long procId, String step) {
      this(term, procId, step, null);
    }

    public Ping {
      seq = seq == null ? 0L : seq;
      Checks.context(term, procId, step);
      Checks.nonNegative("seq", seq);
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
      RegionRole role,
      Long seq)
      implements DataNodeRequest {
    CreateRegion(
        long term,
        long procId,
        String step,
        int regionId,
        String database,
        RegionKind kind,
        RegionRole role) {
      this(term, procId, step, regionId, database, kind, role, null);
    }

    public CreateRegion {
      seq = seq == null ? 0L : seq;
      Checks.context(term, procId, step);
      Checks.nonNegative("seq", seq);
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
      @JsonProperty(required = true) int regionId,
      Long seq)
      implements DataNodeRequest {
    DeleteRegion(long term, long procId, String step, int regionId) {
      this(term, procId, step, regionId, null);
    }

    public DeleteRegion {
      seq = seq == null ? 0L : seq;
      Checks.context(term, procId, step);
      Checks.nonNegative("seq", seq);
      Checks.nonNegative("regionId", regionId);
    }
  }

  /** Makes a replica leader or follower of its region (leader switch); it must exist here. */
  record SetRegionRole(
      @JsonProperty(required = true) long term,
      @JsonProperty(required = true) long procId,
      @JsonProperty(required = true) String step,
      @JsonProperty(required = true) int regionId,
      @JsonProperty(required = true) RegionRole role,
      Long seq)
      implements DataNodeRequest {
    SetRegionRole(long term, long procId, String step, int regionId, RegionRole role) {
      this(term, procId, step, regionId, role, null);
    }

    public SetRegionRole {
      seq = seq == null ? 0L : seq;
      Checks.context(term, procId, step);
      Checks.nonNegative("seq", seq);
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
      @JsonProperty(required = true) long dataVersion,
      Long seq)
      implements DataNodeRequest {
    SyncRegion(long term, long procId, String step, int regionId, long dataVersion) {
      this(term, procId, step, regionId, dataVersion, null);
    }

    public SyncRegion {
      seq = seq == null ? 0L : seq;
      Checks.context(term, procId, step);
      Checks.nonNegative("seq", seq);
      Checks.nonNegative("regionId", regionId);
      Checks.nonNegative("dataVersion", dataVersion);
    }
  }

  /** Drops the DataNode's cached schema of a database; recorded in the invalidation log. */
  record InvalidateCache(
      @JsonProperty(required = true) long term,
      @JsonProperty(required = true) long procId,
      @JsonProperty(required = true) String step,
      @JsonProperty(required = true) String database,
      Long seq)
      implements DataNodeRequest {
    InvalidateCache(long term, long procId, String step, String database) {
      this(term, procId, step, database, null);
    }

    public InvalidateCache {
      seq = seq == null ? 0L : seq;
      Checks.context(term, procId, step);
      Checks.nonNegative("seq", seq);
      Checks.notBlank("database", database);
    }
  }
}
