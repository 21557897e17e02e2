package dev.baton.confignode.procedures;

import dev.baton.confignode.datanode.CommandContext;
import dev.baton.confignode.datanode.CommandObserver;
import dev.baton.confignode.datanode.DataNodeClient;
import dev.baton.confignode.datanode.DataNodeConnector;
import dev.baton.confignode.faults.StateHolds;
import dev.baton.confignode.meta.ClusterMetadata;
import dev.baton.consensus.LeaderContext;
import dev.baton.consensus.Membership;
import dev.baton.procedure.CallReporter;
import dev.baton.procedure.scheduler.LockEnvironment;
import dev.baton.procedure.scheduler.LockManager;
import java.io.IOException;
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
  private final DataNodeConnector dataNodes;
  private final Map<String, DataNodeClient> clients = new ConcurrentHashMap<>();
  // the registered id of each DataNode address reached through dataNode(id)
  private final Map<String, Integer> idsByAddress = new ConcurrentHashMap<>();
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
   * @param dataNodes how the node reaches DataNodes (plain HTTP, or HTTPS with its member
   *     certificate), made once at start and shared among its terms' environments (making one costs
   *     seconds on a busy machine: the TLS defaults load then, and that would delay every failover)
   * @param membership the node's Raft group membership, which the membership procedures change
   */
  public ConfigNodeEnv(
      LeaderContext leader,
      ClusterMetadata metadata,
      StateHolds holds,
      AtomicLong commandSeq,
      DataNodeConnector dataNodes,
      Membership membership) {
    this.leader = leader;
    this.dataNodes = dataNodes;
    this.membership = membership;
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
   * (e.g. a step's command that timed out here and arrives after the step's undo). The client
   * reports the call to the procedure's executor ({@link CallReporter}), so a procedure held up by
   * a DataNode shows which call it waits on, its attempt and its last error.
   */
  public CommandContext command(ConfigNodeProcedure<?> proc, String key) {
    return new CommandContext(
        leader.term(), proc.getProcId(), key, commandSeq.incrementAndGet(), observer(proc.calls()));
  }

  /** Reports each command to {@code calls}, naming the DataNode by its id where registered. */
  private CommandObserver observer(CallReporter calls) {
    return new CommandObserver() {
      @Override
      public void started(String address, String command) {
        calls.started(dataNodeName(address), command);
      }

      @Override
      public void answered() {
        calls.succeeded();
      }

      @Override
      public void failed(String error) {
        calls.failed(error);
      }
    };
  }

  /** "DataNode 2 at 127.0.0.1:7001", or "DataNode at ..." for one not reached by its id. */
  private String dataNodeName(String address) {
    Integer id = idsByAddress.get(address);
    return id == null ? "DataNode at " + address : "DataNode " + id + " at " + address;
  }

  /** A client of the DataNode at {@code address}. */
  public DataNodeClient dataNode(String address) {
    return clients.computeIfAbsent(address, dataNodes::client);
  }

  /** A client of a registered DataNode. */
  public DataNodeClient dataNode(int id) throws IOException {
    ClusterMetadata.DataNode dn =
        metadata
            .local()
            .dataNode(id)
            .orElseThrow(() -> new IOException("DataNode " + id + " is not registered"));
    idsByAddress.put(dn.address(), id);
    return dataNode(dn.address());
  }

  /** Writes metadata as this term's leader. */
  public void writeMetadata(Map<String, Object> puts, java.util.Collection<String> deletes)
      throws IOException {
    metadata.write(leader, puts, deletes);
  }
}
