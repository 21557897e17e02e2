package dev.baton.it;

import dev.baton.confignode.cluster.ProcessCluster;
import dev.baton.confignode.datanode.DataNodeClient;
import java.util.List;
import java.util.Set;

/**
 * Every named state of MigrateRegion as a kill point: a state that sends a DataNode command is held
 * by stalling that command on its DataNode; one that only reads or writes ConfigNode metadata by a
 * fault hold set on the leader.
 */
final class MigrateKillPoints {
  /** Every state of MigrateRegion, in execution order. */
  static final List<String> STATES =
      List.of(
          "VALIDATE",
          "ADD_PEER",
          "CATCH_UP",
          "SWITCH_LEADER",
          "REMOVE_FROM_SOURCE",
          "UPDATE_METADATA");

  /** The states that send no DataNode command. */
  static final Set<String> METADATA_ONLY = Set.of("VALIDATE", "UPDATE_METADATA");

  /** A move held at its kill point; {@code stalled} is the DataNode holding it, if one does. */
  record Held(long procId, DataNodeClient stalled) {
    /** Lets a stalled command go (a fault hold goes with the killed leader). */
    void release() throws Exception {
      if (stalled != null) {
        stalled.resetFaults();
      }
    }
  }

  private MigrateKillPoints() {}

  /** Submits {@code m} and returns once it is held at {@code state}. */
  static Held submitHeldAt(ProcessCluster cluster, Move m, String state) throws Exception {
    if (METADATA_ONLY.contains(state)) {
      Holds.Hold hold = new Holds.Hold("MigrateRegion", state);
      Holds.arm(cluster, cluster.leader(), hold);
      long id = cluster.procedures().submit("MigrateRegion", m.args());
      Holds.awaitHeld(cluster, hold, id);
      return new Held(id, null);
    }
    DataNodeClient dn = cluster.dataNode(state.equals("REMOVE_FROM_SOURCE") ? m.from() : m.to());
    dn.stallStep(state.equals("SWITCH_LEADER") ? "SWITCH_LEADER@target" : state);
    long id = cluster.procedures().submit("MigrateRegion", m.args());
    Drills.awaitHeldAt(cluster, id, state, dn);
    return new Held(id, dn);
  }
}
