package dev.baton.procedure;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finished root procedures (and the members of their trees) kept queryable for the retention
 * period. Pure bookkeeping over times passed in by the caller; the executor's cleaner asks for the
 * expired roots and deletes them, with their members, from the store. Only final infos are held
 * here, never live procedures.
 */
final class CompletedProcedureRetainer {

  /**
   * A finished tree: its root's info, the ids of the other members, when it expires, and whether
   * its final records are in the store (false: the root's final write deleted them).
   */
  record Completed(
      ProcedureInfo root, List<Long> memberIds, NonceKey nonce, long expiresAt, boolean stored) {}

  private final Map<Long, Completed> roots = new ConcurrentHashMap<>();
  private final Map<Long, ProcedureInfo> infos = new ConcurrentHashMap<>();

  void add(
      ProcedureInfo root,
      Collection<ProcedureInfo> members,
      NonceKey nonce,
      long expiresAt,
      boolean stored) {
    List<Long> ids = new ArrayList<>(members.size());
    for (ProcedureInfo m : members) {
      ids.add(m.procId());
      infos.put(m.procId(), m);
    }
    infos.put(root.procId(), root);
    roots.put(root.procId(), new Completed(root, ids, nonce, expiresAt, stored));
  }

  ProcedureInfo get(long procId) {
    return infos.get(procId);
  }

  Collection<ProcedureInfo> all() {
    return infos.values();
  }

  int rootCount() {
    return roots.size();
  }

  /** How many records retiring {@code c} deletes: its root's and its members'. */
  static int recordCount(Completed c) {
    return 1 + c.memberIds().size();
  }

  /** The roots whose retention ended at {@code now}; they stay until {@link #remove}. */
  List<Completed> expired(long now) {
    List<Completed> out = new ArrayList<>();
    for (Completed c : roots.values()) {
      if (c.expiresAt() <= now) {
        out.add(c);
      }
    }
    return out;
  }

  void remove(Completed c) {
    roots.remove(c.root().procId());
    infos.remove(c.root().procId());
    for (long id : c.memberIds()) {
      infos.remove(id);
    }
  }
}
