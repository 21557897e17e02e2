package dev.baton.consensus;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.util.TimeDuration;

/**
 * Refuses to start a member with a fresh (empty) storage directory when the cluster knows that this
 * member had a log before: its storage was wiped or lost.
 *
 * <p>Why refuse rather than let it catch up (Ratis would send it the log or a snapshot): Raft's
 * safety rests on every member keeping its vote record (current term, the candidate it voted for)
 * on disk. A member that lost it can vote a second time in a term it already voted in, so two
 * candidates can each gather a majority and two leaders be elected in one term, each committing
 * different entries at the same index: an acknowledged procedure could be lost. The safe ways back
 * are the operator's: restore the directory from a backup, or replace the member under a new id (a
 * new node started with {@link ProcedureNode.Builder#join}, the old id removed and the new one
 * added through {@link Membership}).
 *
 * <p>How it knows: only when the storage does not exist, it asks every other member for its view of
 * the group; the leader reports the commit index each member acknowledged. A commit index above 0
 * for this node means it held a log. A brand-new member (never started, or a new cluster) is not
 * known to any leader and starts normally; so does a wiped member while no leader that saw it is
 * reachable (the check cannot tell it from a new one then).
 */
final class LostStorageCheck {
  private LostStorageCheck() {}

  /**
   * @throws LostStorageException if a member reports that {@code nodeId} acknowledged log entries
   */
  static void check(String nodeId, RaftGroup group, Path storageDir, RaftSecurity security)
      throws IOException {
    RaftProperties props = new RaftProperties();
    RaftClientConfigKeys.Rpc.setRequestTimeout(
        props,
        TimeDuration.valueOf(ConsensusWaits.PEER_ANSWER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
    try (RaftClient client =
        RaftClient.newBuilder()
            .setRaftGroup(group)
            .setProperties(props)
            .setParameters(security.clientParameters())
            .setRetryPolicy(RetryPolicies.noRetry())
            .build()) {
      for (RaftPeer peer : group.getPeers()) {
        if (peer.getId().toString().equals(nodeId)) {
          continue;
        }
        GroupInfoReply info;
        try {
          info = client.getGroupManagementApi(peer.getId()).info(group.getGroupId());
        } catch (IOException | RuntimeException unreachable) {
          continue; // not up (a new cluster starting), or not answering: nothing known
        }
        for (CommitInfoProto c : info.getCommitInfos()) {
          RaftPeerId id = RaftPeerId.valueOf(c.getServer().getId());
          if (id.toString().equals(nodeId) && c.getCommitIndex() > 0) {
            throw new LostStorageException(nodeId, storageDir, peer.getId(), c.getCommitIndex());
          }
        }
      }
    }
  }

  /** A member whose storage was lost tried to start; the message says what to do. */
  static final class LostStorageException extends IOException {
    LostStorageException(String nodeId, Path storageDir, RaftPeerId reporter, long commitIndex) {
      super(
          "node "
              + nodeId
              + " has no Raft storage in "
              + storageDir
              + ", but "
              + reporter
              + " reports that it had acknowledged the cluster's log up to index "
              + commitIndex
              + ": its storage was lost. A member that lost its storage also lost its vote record"
              + " and could help elect two leaders in one term, so it does not rejoin. Restore "
              + storageDir
              + " from a backup, or replace the member under a new node id: start a new node with"
              + " an empty directory as a joining member, then remove "
              + nodeId
              + " from the group and add the new one (a ConfigNode: replace-confignode).");
    }
  }
}
