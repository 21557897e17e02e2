package dev.baton.confignode.procedures;

import dev.baton.confignode.datanode.CommandContext;
import dev.baton.confignode.datanode.DataNodeClient;
import dev.baton.confignode.faults.StateHolds;
import dev.baton.confignode.meta.ClusterMetadata;
import dev.baton.confignode.waits.ConfigNodeWaits;
import dev.baton.consensus.LeaderContext;
import dev.baton.consensus.Membership;
import dev.baton.procedure.Procedure;
import dev.baton.procedure.scheduler.LockEnvironment;
import dev.baton.procedure.scheduler.LockManager;
import java.io.IOException;
import java.net.http.HttpClient;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What ConfigNode procedures act on, one per leader term: the leader context (its term is the
 * fencing token every DataNode command carries), the replicated metadata, clients of the registered
 * DataNodes, the Raft group's membership, the lock table conflicting procedures serialize on, and
 * the node's fault holds.
 */
public final class ConfigNodeEnv implements LockEnvironment {
  private final LeaderContext leader;
  private final ClusterMetadata metadata;
  private final HttpClient http;
  private final Map<String, DataNodeClient> clients = new ConcurrentHashMap<>();
  private final LockManager locks = new LockManager();
  private final StateHolds holds;
  private final AtomicLong commandSeq;
  private final Membership membership;

  /**
   * An environment for one leader term.
   *
   * @param holds the node's fault holds (they outlive a term): those set on this node hold here
   * @param commandSeq the node's DataNode command counter (see {@link #command}), shared among its
   *     terms' environments
   * @param http the node's HTTP client for DataNode calls, made once at start and shared among its
   *     terms' environments (making one costs seconds on a busy machine: the TLS defaults load
   *     then, and that would delay every failover)
   * @param membership the node's Raft group membership, which the membership procedures change
   */
  public ConfigNodeEnv(
      LeaderContext leader,
      ClusterMetadata metadata,
      StateHolds holds,
      AtomicLong commandSeq,
      HttpClient http,
      Membership membership) {
    this.leader = leader;
    this.membership = membership;
    this.http = http;
    this.metadata = metadata;
    this.holds = holds;
    this.commandSeq = commandSeq;
  }

  /** The fault holds of this node (disabled unless it runs with {@code --faults}). */
  public StateHolds holds() {
    return holds;
  }

  /** The lock table of this term's executor: new per term, re-filled by recovery. */
  @Override
  public LockManager lockManager() {
    return locks;
  }

  public LeaderContext leader() {
    return leader;
  }

  public ClusterMetadata metadata() {
    return metadata;
  }

  /** The Raft group's membership, as this term's leader changes it. */
  public Membership membership() {
    return membership;
  }

  /**
   * The command context of one DataNode call of a step; {@code key} makes it unique per call. Each
   * call numbers the command after every command this term's leader made before, so a procedure's
   * commands are ordered by (term, seq) and a DataNode refuses one the procedure has moved past
   * (e.g. a step's command that timed out here and arrives after the step's undo).
   */
  public CommandContext command(Procedure<?> proc, String key) {
    return new CommandContext(leader.term(), proc.getProcId(), key, commandSeq.incrementAndGet());
  }

  /** A client of the DataNode at {@code address}. */
  public DataNodeClient dataNode(String address) {
    return clients.computeIfAbsent(
        address, a -> new DataNodeClient(http, a, ConfigNodeWaits.DATANODE_REQUEST_TIMEOUT));
  }

  /** A client of a registered DataNode. */
  public DataNodeClient dataNode(int id) throws IOException {
    ClusterMetadata.DataNode dn =
        metadata
            .local()
            .dataNode(id)
            .orElseThrow(() -> new IOException("DataNode " + id + " is not registered"));
    return dataNode(dn.address());
  }

  /** Writes metadata as this term's leader. */
  public void writeMetadata(Map<String, Object> puts, java.util.Collection<String> deletes)
      throws IOException {
    metadata.write(leader, puts, deletes);
  }
}
