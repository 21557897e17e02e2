package dev.baton.confignode.datanode;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/** What an applied command did, beyond its ledger entry. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
  @JsonSubTypes.Type(value = Effect.PutRegion.class, name = "put_region"),
  @JsonSubTypes.Type(value = Effect.RemoveRegion.class, name = "remove_region"),
  @JsonSubTypes.Type(value = Effect.Invalidate.class, name = "invalidate")
})
sealed interface Effect {
  /** The replica was created or changed to this. */
  record PutRegion(RegionReplica region) implements Effect {}

  /** The replica was deleted. */
  record RemoveRegion(int regionId) implements Effect {}

  /** A schema cache invalidation was logged. */
  record Invalidate(CacheInvalidation invalidation) implements Effect {}
}
