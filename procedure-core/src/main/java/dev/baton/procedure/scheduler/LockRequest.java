package dev.baton.procedure.scheduler;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The locks one procedure needs for a step, taken all together or not at all by {@link
 * LockManager#acquire}. Immutable; build it once and reuse it.
 *
 * <p>The request is expanded through the resource hierarchy when it is built: locking a region (in
 * either mode) also locks its database in shared mode, so a database-exclusive lock (deleting the
 * database) excludes every region lock of that database and the other way round. A key named twice
 * is locked in the stronger mode. {@link #items()} lists the expanded locks, parents first.
 *
 * <p>An optional wait timeout bounds how long the procedure may wait for the request; when it
 * passes, the procedure fails with a {@link LockWaitTimeoutException} naming the lock and its
 * holders. It is measured from the moment the procedure parked in the running executor (a wait is
 * not persisted: after a restart the procedure parks, and its timeout starts, again).
 */
public final class LockRequest {

  /** One lock of an expanded request. */
  public record Item(ResourceKey key, LockMode mode) {
    public Item {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(mode, "mode");
    }

    @Override
    public String toString() {
      return key + " (" + mode + ")";
    }
  }

  private final List<Item> items;
  private final Item[] itemArray;
  private final Duration waitTimeout;

  private LockRequest(List<Item> items, Duration waitTimeout) {
    this.items = items;
    this.itemArray = items.toArray(new Item[0]);
    this.waitTimeout = waitTimeout;
  }

  /** Exclusive locks on {@code keys} (and shared locks on their ancestors). */
  public static LockRequest exclusive(ResourceKey... keys) {
    Builder b = builder();
    for (ResourceKey k : keys) {
      b.exclusive(k);
    }
    return b.build();
  }

  /** Shared locks on {@code keys} and their ancestors. */
  public static LockRequest shared(ResourceKey... keys) {
    Builder b = builder();
    for (ResourceKey k : keys) {
      b.shared(k);
    }
    return b.build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The expanded locks, parents before children, each key once. */
  public List<Item> items() {
    return items;
  }

  Item[] itemArray() {
    return itemArray;
  }

  /** How long the procedure may wait for this request; {@link Duration#ZERO} for no limit. */
  public Duration waitTimeout() {
    return waitTimeout;
  }

  /** The same locks with another wait timeout ({@link Duration#ZERO}: wait without limit). */
  public LockRequest withWaitTimeout(Duration timeout) {
    return new LockRequest(items, checkTimeout(timeout));
  }

  private static Duration checkTimeout(Duration timeout) {
    if (timeout == null || timeout.isNegative()) {
      throw new IllegalArgumentException(
          "lock wait timeout must be zero (none) or positive, got " + timeout);
    }
    return timeout;
  }

  @Override
  public String toString() {
    return items.toString();
  }

  /** Builds a {@link LockRequest}. */
  public static final class Builder {
    private final Map<ResourceKey, LockMode> modes = new TreeMap<>();
    private Duration waitTimeout = Duration.ZERO;

    private Builder() {}

    /** Locks {@code key} exclusively (and its ancestors shared). */
    public Builder exclusive(ResourceKey key) {
      return add(key, LockMode.EXCLUSIVE);
    }

    /** Locks {@code key} and its ancestors shared. */
    public Builder shared(ResourceKey key) {
      return add(key, LockMode.SHARED);
    }

    /** Locks {@code key} in {@code mode} (and its ancestors shared). */
    public Builder add(ResourceKey key, LockMode mode) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(mode, "mode");
      modes.merge(key, mode, LockMode::max);
      for (ResourceKey p = key.parentOrNull(); p != null; p = p.parentOrNull()) {
        modes.merge(p, LockMode.SHARED, LockMode::max);
      }
      return this;
    }

    /**
     * Fails the procedure once it has waited this long for the lock. Bounds: zero or positive;
     * {@link Duration#ZERO} waits without limit. Default: zero.
     *
     * @throws IllegalArgumentException for a null or negative timeout
     */
    public Builder waitTimeout(Duration timeout) {
      this.waitTimeout = checkTimeout(timeout);
      return this;
    }

    /**
     * @throws IllegalArgumentException if no lock was added
     */
    public LockRequest build() {
      if (modes.isEmpty()) {
        throw new IllegalArgumentException("a lock request needs at least one resource");
      }
      List<Item> list = new ArrayList<>(modes.size());
      modes.forEach((k, m) -> list.add(new Item(k, m)));
      return new LockRequest(Collections.unmodifiableList(list), waitTimeout);
    }
  }
}
