package dev.baton.consensus;

import dev.baton.consensus.tls.ClientRole;
import dev.baton.consensus.tls.PeerIdentity;
import java.util.EnumSet;
import java.util.Set;
import java.util.TreeSet;
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
 *       cannot speak for another.
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
      return OTHER;
    }
  }

  /** The client requests a reader may make: they change nothing. */
  static final Set<RaftClientRequestProto.TypeCase> READ_ONLY =
      EnumSet.of(
          RaftClientRequestProto.TypeCase.READ,
          RaftClientRequestProto.TypeCase.STALEREAD,
          RaftClientRequestProto.TypeCase.WATCH);

  private final Set<String> members;

  /**
   * @param members the peer ids of the group
   */
  AccessPolicy(Set<String> members) {
    this.members = Set.copyOf(members);
  }

  /** Why {@code who} may not call {@code service} at all, or null. */
  String refuseCall(PeerIdentity who, Service service) {
    if (service == Service.OTHER) {
      return "no such service on a member's Raft port";
    }
    switch (who.kind()) {
      case MEMBER:
        return members.contains(who.name())
            ? null
            : who + " is not a member of this cluster (" + new TreeSet<>(members) + ")";
      case CLIENT:
        if (service == Service.SERVER) {
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

  /** Why the member {@code who} may not send a Raft request naming {@code requestorId}, or null. */
  String refuseServerRequest(PeerIdentity who, String requestorId) {
    return who.isMember(requestorId)
        ? null
        : who
            + " sent a Raft request as member "
            + requestorId
            + ": a member speaks only for itself";
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
