package dev.baton.procedure.scheduler;

import java.util.Objects;
import java.util.Optional;

/**
 * Names one resource: a data node, a database, or a region of a database. Keys are values (equal
 * when type and names are equal) and form a hierarchy: a region's parent is its database. Locking a
 * key also locks its ancestors in shared mode ({@link LockRequest}).
 *
 * <p>Rendered as {@code node:<id>}, {@code database:<name>} and {@code region:<database>/<id>}.
 */
public final class ResourceKey implements Comparable<ResourceKey> {
  private final ResourceType type;
  private final String name;
  private final ResourceKey parent;
  private final String text;
  private final int hash;

  private ResourceKey(ResourceType type, String name, ResourceKey parent) {
    this.type = type;
    this.name = name;
    this.parent = parent;
    this.text =
        type.name().toLowerCase(java.util.Locale.ROOT)
            + ":"
            + (parent == null ? "" : parent.name + "/")
            + name;
    this.hash = text.hashCode();
  }

  /** A data node, by its id. */
  public static ResourceKey node(String nodeId) {
    return new ResourceKey(ResourceType.NODE, requireName("node id", nodeId), null);
  }

  /** A database, by its name. */
  public static ResourceKey database(String database) {
    return new ResourceKey(ResourceType.DATABASE, requireName("database name", database), null);
  }

  /** A region of {@code database}; its parent is {@link #database(String) database(database)}. */
  public static ResourceKey region(String database, String regionId) {
    return new ResourceKey(
        ResourceType.REGION, requireName("region id", regionId), database(database));
  }

  private static String requireName(String what, String name) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException(what + " must be a non-empty string, got '" + name + "'");
    }
    if (name.indexOf('/') >= 0) {
      throw new IllegalArgumentException(what + " must not contain '/', got '" + name + "'");
    }
    return name;
  }

  /** What kind of resource this is. */
  public ResourceType type() {
    return type;
  }

  /** The node id, database name or region id (without the database). */
  public String name() {
    return name;
  }

  /** The enclosing resource: a region's database; empty for nodes and databases. */
  public Optional<ResourceKey> parent() {
    return Optional.ofNullable(parent);
  }

  /** The number of ancestors: 0 for nodes and databases, 1 for regions. */
  public int depth() {
    return parent == null ? 0 : parent.depth() + 1;
  }

  ResourceKey parentOrNull() {
    return parent;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    return o instanceof ResourceKey k
        && hash == k.hash
        && type == k.type
        && name.equals(k.name)
        && Objects.equals(parent, k.parent);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  /** Orders parents before children, then by text: the order locks are listed and taken in. */
  @Override
  public int compareTo(ResourceKey o) {
    int d = Integer.compare(depth(), o.depth());
    return d != 0 ? d : text.compareTo(o.text);
  }

  @Override
  public String toString() {
    return text;
  }
}
