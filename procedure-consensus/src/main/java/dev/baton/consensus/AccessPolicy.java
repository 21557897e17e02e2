package dev.baton.consensus;

import dev.baton.consensus.tls.ClientRole;
import dev.baton.consensus.tls.PeerIdentity;
import java.util.EnumSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.ratis.proto.RaftProtos.RaftClientRequestProto;
import org.apache.ratis.proto.grpc.AdminProtocolServiceGrpc;
import org.apache.ratis.proto.grpc.RaftClientProtocolServiceGrpc;
import org.apache.ratis.proto.grpc.RaftServerProtocolServiceGrpc;

/**
 * Who may call what on a member's Raft port, decided from the identity the caller's certificate
 * names ({@link PeerIdentity}); no I/O, the gRPC side is {@link AccessInterceptor}.
 *
 * <ul>
 *   <li>Raft between members (votes, appends, snapshots, read index, election start): members only,
 *       and each request must name as its requestor the member its certificate names: a member
 *       cannot speak for another. A member identity outside the group may only ask for a vote: Raft
 *       refuses it the vote and tells a removed member to shut down, which is how it learns it was
 *       removed.
 *   <li>Baton's read index service ({@link ReadIndexService}): members of the group only.
 *   <li>Ratis' admin service (membership, leadership transfer, group management, snapshots,
 *       election control): members and clients with role {@code admin}.
 *   <li>The client service (submissions, aborts, reads): members and clients; a {@code reader} only
 *       reads.
 *   <li>Anyone else (a member id outside the group, a DataNode) nothing. The state machine still
 *       refuses executor-only commands from anything but the leader's own submitter.
 * </ul>
 *
 * Each check returns why it refuses, or null when it allows.
 */
final class AccessPolicy {
  /** The gRPC services on a member's Raft port. */
  enum Service {
    /** Raft between members. */
    SERVER,
    ADMIN,
    CLIENT,
    /** Baton's read index call between members. */
    READ_INDEX,
    /** Anything else: refused. */
    OTHER;

    static Service of(String grpcServiceName) {
      if (RaftServerProtocolServiceGrpc.SERVICE_NAME.equals(grpcServiceName)) {
        return SERVER;
      }
      if (AdminProtocolServiceGrpc.SERVICE_NAME.equals(grpcServiceName)) {
        return ADMIN;
      }
      if (RaftClientProtocolServiceGrpc.SERVICE_NAME.equals(grpcServiceName)) {
        return CLIENT;
      }
      if (ReadIndexService.SERVICE_NAME.equals(grpcServiceName)) {
        return READ_INDEX;
      }
      return OTHER;
    }
  }

  /** The client requests a reader may make: they change nothing. */
  static final Set<RaftClientRequestProto.TypeCase> READ_ONLY =
      EnumSet.of(
          RaftClientRequestProto.TypeCase.READ,
          RaftClientRequestProto.TypeCase.STALEREAD,
          RaftClientRequestProto.TypeCase.WATCH);

  private final Predicate<String> isMember;
  private final Supplier<Set<String>> memberIds;

  /**
   * @param members the peer ids of the group, fixed
   */
  AccessPolicy(Set<String> members) {
    Set<String> fixed = Set.copyOf(members);
    this.isMember = fixed::contains;
    this.memberIds = () -> fixed;
  }

  /** The members of the group as {@code view} sees them, changing with its configuration. */
  AccessPolicy(MembershipView view) {
    this.isMember = view::isMember;
    this.memberIds = view::knownIds;
  }

  /** Why {@code who} may not call {@code service} at all, or null. */
  String refuseCall(PeerIdentity who, Service service) {
    if (service == Service.OTHER) {
      return "no such service on a member's Raft port";
    }
    switch (who.kind()) {
      case MEMBER:
        // a member identity outside the group may still ask for a vote (see the class comment)
        return service == Service.SERVER || isMember.test(who.name()) ? null : notAMember(who);
      case CLIENT:
        if (service == Service.SERVER || service == Service.READ_INDEX) {
          return who + " may not take part in Raft: only members do";
        }
        if (service == Service.ADMIN && !who.role().mayAdminister()) {
          return who
              + " may not call Ratis' admin service: it takes a member or role "
              + ClientRole.ADMIN.certificateName();
        }
        return null;
      default:
        return who + " may not use a member's Raft port";
    }
  }

  /**
   * Why the member {@code who} may not send a Raft request naming {@code requestorId}, or null;
   * {@code vote} tells a vote request from the others.
   */
  String refuseServerRequest(PeerIdentity who, String requestorId, boolean vote) {
    if (!who.isMember(requestorId)) {
      return who
          + " sent a Raft request as member "
          + requestorId
          + ": a member speaks only for itself";
    }
    if (vote || isMember.test(who.name())) {
      return null;
    }
    return notAMember(who) + "; outside the group it may only ask for a vote";
  }

  private String notAMember(PeerIdentity who) {
    return who + " is not a member of this cluster (" + new TreeSet<>(memberIds.get()) + ")";
  }

  /** Why {@code who} may not make a client request of {@code type}, or null. */
  String refuseClientRequest(PeerIdentity who, RaftClientRequestProto.TypeCase type) {
    if (who.kind() != PeerIdentity.Kind.CLIENT
        || who.role().mayWrite()
        || READ_ONLY.contains(type)) {
      return null;
    }
    return who + " may only read; its " + type + " request is refused";
  }

  /** Whether every client request of {@code who} is allowed whatever its type. */
  boolean allowsEveryClientRequest(PeerIdentity who) {
    return who.kind() != PeerIdentity.Kind.CLIENT || who.role().mayWrite();
  }
}
