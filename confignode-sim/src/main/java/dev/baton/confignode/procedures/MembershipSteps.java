package dev.baton.confignode.procedures;

import dev.baton.confignode.meta.ClusterMetadata;
import dev.baton.confignode.meta.ClusterMetadata.ConfigNode;
import dev.baton.confignode.waits.ConfigNodeWaits;
import dev.baton.consensus.Membership;
import dev.baton.consensus.tls.PeerIdentity;
import dev.baton.procedure.scheduler.LockRequest;
import dev.baton.procedure.scheduler.ResourceKey;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What the ConfigNode membership procedures ({@link AddConfigNode}, {@link RemoveConfigNode},
 * {@link ReplaceConfigNode}) check and do, step by step, on the leader's {@link Membership}. Each
 * step reads the group's configuration first, so one re-run after a failover does nothing twice.
 *
 * <p>One change at a time: each takes the exclusive lock {@link #LOCK_KEY} for its whole run (a
 * replacement's children share their parent's), and a second change that finds it taken is refused
 * after {@link ConfigNodeWaits#MEMBERSHIP_LOCK_WAIT}, its error naming the change that holds it.
 */
final class MembershipSteps {
  /** The lock of the cluster's membership. */
  static final ResourceKey LOCK_KEY = ResourceKey.node("confignode-membership");

  private static final LockRequest LOCK =
      LockRequest.exclusive(LOCK_KEY).withWaitTimeout(ConfigNodeWaits.MEMBERSHIP_LOCK_WAIT);

  /** ConfigNode ids, as a member certificate names them. */
  private static final Pattern ID =
      Pattern.compile("[A-Za-z0-9._-]{1," + PeerIdentity.MAX_NAME_LENGTH + "}");

  private MembershipSteps() {}

  static LockRequest lock() {
    return LOCK;
  }

  /** {@code id} if it is a ConfigNode id, else a clear error. */
  static String checkId(String id) {
    if (id == null || !ID.matcher(id).matches()) {
      throw new IllegalArgumentException(
          "a ConfigNode id is 1 to "
              + PeerIdentity.MAX_NAME_LENGTH
              + " characters [A-Za-z0-9._-], got '"
              + id
              + "'");
    }
    return id;
  }

  /** {@code address} if it is a Raft address HOST:PORT, else a clear error. */
  static String checkAddress(String address) {
    return DataNodeAddress.check(address, "ConfigNode Raft");
  }

  static InetSocketAddress socketAddress(String address) {
    int colon = address.lastIndexOf(':');
    return InetSocketAddress.createUnresolved(
        address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
  }

  /**
   * Why {@code id} at {@code address} may not be added, or empty: an id removed before is never
   * used again, and a member keeps its address.
   */
  static Optional<String> refuseAddition(ConfigNodeEnv env, String id, String address) {
    Optional<ConfigNode> recorded = env.metadata().local().configNode(id);
    if (recorded.isPresent() && recorded.get().status() == ConfigNode.Status.REMOVED) {
      return Optional.of(
          "ConfigNode "
              + id
              + " was removed from the cluster; a removed id is never added again (a node that"
              + " lost its storage under it could vote twice in one term): add the node under a"
              + " new id");
    }
    for (Membership.Member m : env.membership().members()) {
      if (m.id().equals(id) && !m.address().equals(address)) {
        return Optional.of(
            "ConfigNode " + id + " is a member at " + m.address() + ", not at " + address);
      }
    }
    return Optional.empty();
  }

  /**
   * Why {@code id} may not be removed, or empty: it must be a member, and the members left must
   * still have a live majority (the leader heard from them lately), or the group could not commit
   * anything after the change.
   */
  static Optional<String> refuseRemoval(ConfigNodeEnv env, String id) {
    List<Membership.Member> members = env.membership().members();
    List<String> ids = members.stream().map(Membership.Member::id).toList();
    if (!ids.contains(id)) {
      return Optional.of("ConfigNode " + id + " is not a member of the group " + ids);
    }
    List<Membership.Member> rest = members.stream().filter(m -> !m.id().equals(id)).toList();
    if (rest.isEmpty()) {
      return Optional.of("ConfigNode " + id + " is the last member; a group needs one");
    }
    List<String> live = rest.stream().filter(Membership.Member::live).map(m -> m.id()).toList();
    int majority = rest.size() / 2 + 1;
    if (live.size() < majority) {
      return Optional.of(
          "removing ConfigNode "
              + id
              + " would leave "
              + rest.size()
              + " members of which "
              + live.size()
              + " are live "
              + live
              + ", and a majority needs "
              + majority
              + ": bring a member back (or replace a dead one) first");
    }
    return Optional.empty();
  }

  /**
   * If this node (the leader) is {@code id}, hands leadership to the live member furthest in the
   * log; then this executor loses its term and the step runs again on the new leader, where there
   * is nothing to do.
   */
  static void leaveLeadership(ConfigNodeEnv env, String id)
      throws IOException, InterruptedException {
    Membership membership = env.membership();
    if (!membership.self().equals(id)) {
      return;
    }
    String target =
        membership.members().stream()
            .filter(m -> !m.id().equals(id) && m.live())
            .max(Comparator.comparingLong(Membership.Member::matchIndex))
            .map(Membership.Member::id)
            .orElseThrow(() -> new IOException("no live member to hand leadership to from " + id));
    membership.transferLeadership(target, ConfigNodeWaits.LEADERSHIP_TRANSFER_WAIT);
  }

  /** Records {@code id}'s membership in the replicated metadata. */
  static void record(ConfigNodeEnv env, String id, String address, ConfigNode.Status status)
      throws IOException {
    ConfigNode c = new ConfigNode(id, address, status);
    env.writeMetadata(Map.of(ClusterMetadata.key(c), c), List.of());
  }

  /** The Raft address of the member {@code id}, as the group's configuration has it. */
  static Optional<String> addressOf(ConfigNodeEnv env, String id) {
    return env.membership().members().stream()
        .filter(m -> m.id().equals(id))
        .map(Membership.Member::address)
        .findFirst();
  }
}
