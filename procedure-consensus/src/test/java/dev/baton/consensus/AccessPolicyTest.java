package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.consensus.AccessPolicy.Service;
import dev.baton.consensus.tls.ClientRole;
import dev.baton.consensus.tls.PeerIdentity;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.proto.RaftProtos.RaftClientRequestProto.TypeCase;
import org.apache.ratis.proto.grpc.AdminProtocolServiceGrpc;
import org.apache.ratis.proto.grpc.RaftClientProtocolServiceGrpc;
import org.apache.ratis.proto.grpc.RaftServerProtocolServiceGrpc;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Who may call what on a member's Raft port, without a network. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class AccessPolicyTest {
  private final AccessPolicy policy = new AccessPolicy(Set.of("a", "b", "c"));
  private final PeerIdentity a = PeerIdentity.member("a");
  private final PeerIdentity reader = PeerIdentity.client("r", ClientRole.READER);
  private final PeerIdentity operator = PeerIdentity.client("o", ClientRole.OPERATOR);
  private final PeerIdentity admin = PeerIdentity.client("x", ClientRole.ADMIN);

  @Test
  void servicesAreKnownByTheirGrpcNames() {
    assertEquals(Service.SERVER, Service.of(RaftServerProtocolServiceGrpc.SERVICE_NAME));
    assertEquals(Service.ADMIN, Service.of(AdminProtocolServiceGrpc.SERVICE_NAME));
    assertEquals(Service.CLIENT, Service.of(RaftClientProtocolServiceGrpc.SERVICE_NAME));
    assertEquals(Service.READ_INDEX, Service.of(ReadIndexService.SERVICE_NAME));
    assertEquals(Service.OTHER, Service.of("grpc.health.v1.Health"));
  }

  @Test
  void membersUseEveryServiceButNothingElse() {
    for (Service s : Set.of(Service.SERVER, Service.ADMIN, Service.CLIENT, Service.READ_INDEX)) {
      assertNull(policy.refuseCall(a, s));
    }
    assertNotNull(policy.refuseCall(a, Service.OTHER));
  }

  @Test
  void aDataNodeGetsNothing() {
    PeerIdentity dataNode = PeerIdentity.dataNode("1");
    for (Service s : Service.values()) {
      assertNotNull(policy.refuseCall(dataNode, s), "DataNode on " + s);
    }
  }

  @Test
  void aMemberIdOutsideTheGroupMayOnlyAskForAVote() {
    PeerIdentity d = PeerIdentity.member("d");
    for (Service s : Set.of(Service.ADMIN, Service.CLIENT, Service.READ_INDEX, Service.OTHER)) {
      assertNotNull(policy.refuseCall(d, s), "outsider on " + s);
    }
    assertNull(policy.refuseCall(d, Service.SERVER));
    assertNull(policy.refuseServerRequest(d, "d", true));
    String appends = policy.refuseServerRequest(d, "d", false);
    assertNotNull(appends);
    assertTrue(appends.contains("not a member"), appends);
  }

  @Test
  void aMemberSpeaksOnlyForItself() {
    assertNull(policy.refuseServerRequest(a, "a", false));
    assertNotNull(policy.refuseServerRequest(a, "b", false));
    assertNotNull(policy.refuseServerRequest(a, "b", true));
    assertNotNull(policy.refuseServerRequest(a, null, false));
  }

  @Test
  void clientsNeverTakePartInRaftAndOnlyAdminsAdminister() {
    for (PeerIdentity client : Set.of(reader, operator, admin)) {
      assertNotNull(policy.refuseCall(client, Service.SERVER));
      assertNotNull(policy.refuseCall(client, Service.READ_INDEX));
      assertNull(policy.refuseCall(client, Service.CLIENT));
    }
    assertNotNull(policy.refuseCall(reader, Service.ADMIN));
    assertNotNull(policy.refuseCall(operator, Service.ADMIN));
    assertNull(policy.refuseCall(admin, Service.ADMIN));
  }

  @Test
  void aReaderOnlyReads() {
    for (TypeCase read : AccessPolicy.READ_ONLY) {
      assertNull(policy.refuseClientRequest(reader, read));
    }
    assertNotNull(policy.refuseClientRequest(reader, TypeCase.WRITE));
    assertNotNull(policy.refuseClientRequest(reader, TypeCase.FORWARD));
    assertNull(policy.refuseClientRequest(operator, TypeCase.WRITE));
    assertNull(policy.refuseClientRequest(a, TypeCase.WRITE));
  }
}
