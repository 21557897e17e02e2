package dev.baton.it.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.certs.IssuedCertificate;
import dev.baton.confignode.certs.ClusterCertificates;
import dev.baton.consensus.ProcedureClient;
import dev.baton.consensus.ProcedureNode;
import dev.baton.consensus.tls.ClientRole;
import dev.baton.consensus.tls.TlsSettings;
import dev.baton.procedure.NonceKey;
import dev.baton.procedure.ProcedureInfo;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients of a TLS cluster get what their certificate allows: nothing without a certificate of the
 * cluster's CA, reads with role reader, submissions with role operator, Ratis' admin service with
 * role admin only.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClientAccessTest {
  @TempDir static Path dir;
  static TlsCluster cluster;
  static long existing;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = new TlsCluster(dir, List.of("a", "b", "c"));
    for (String id : cluster.peers.keySet()) {
      cluster.start(id);
    }
    existing = cluster.submitAndFinish(TlsCluster.awaitLeader(cluster.running()));
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  private static TlsSettings role(ClientRole role) throws IOException {
    return cluster.certs.client(role).tlsSettings();
  }

  @Test
  void aClientWithoutACertificateCanNeitherSubmitNorRead() {
    try (ProcedureClient plain = cluster.client(null)) {
      assertThrows(IOException.class, () -> plain.submit(new TwoSteps(), new NonceKey(7, 1)));
      assertThrows(IOException.class, () -> plain.getInfo(existing));
    }
  }

  @Test
  void aClientWithACertificateOfAnotherCaCanNeitherSubmitNorRead() {
    ClusterCertificates otherCa = ClusterCertificates.create("other-ca");
    IssuedCertificate foreign = otherCa.client("mallory", ClientRole.OPERATOR);
    TlsSettings tls =
        TlsSettings.of(foreign.chain(), foreign.privateKey(), List.of(otherCa.caCertificate()));
    try (ProcedureClient client = cluster.client(tls)) {
      assertThrows(IOException.class, () -> client.submit(new TwoSteps(), new NonceKey(7, 2)));
      assertThrows(IOException.class, () -> client.getInfo(existing));
    }
  }

  @Test
  void anOperatorSubmitsAndReads() throws Exception {
    try (ProcedureClient operator = cluster.client(role(ClientRole.OPERATOR))) {
      long id = operator.submit(new TwoSteps(), new NonceKey(7, 3));
      ProcedureInfo done = operator.await(id, TlsCluster.WAIT);
      assertTrue(done.finished(), done.toString());
    }
  }

  @Test
  void aReaderReadsButCannotSubmit() throws Exception {
    try (ProcedureClient reader = cluster.client(role(ClientRole.READER))) {
      assertEquals(existing, reader.getInfo(existing).orElseThrow().procId());
      IOException refused =
          assertThrows(IOException.class, () -> reader.submit(new TwoSteps(), new NonceKey(7, 4)));
      assertTrue(refused.getMessage().contains("may only read"), refused.getMessage());
    }
  }

  @Test
  void onlyAnAdminCallsRatisAdminService() throws Exception {
    ProcedureNode<Object> node = cluster.running().get(0);
    RaftGroupId group =
        RaftGroupId.valueOf(ProcedureNode.raftGroupId(ProcedureNode.DEFAULT_CLUSTER_ID));
    try (RaftClient operator = rawClient(role(ClientRole.OPERATOR), group)) {
      // a bare Ratis client gets gRPC's error as it came
      Exception refused =
          assertThrows(
              Exception.class,
              () -> operator.getGroupManagementApi(RaftPeerId.valueOf(node.nodeId())).info(group));
      assertTrue(String.valueOf(refused).contains("admin service"), String.valueOf(refused));
    }
    try (RaftClient admin = rawClient(role(ClientRole.ADMIN), group)) {
      assertEquals(
          group,
          admin
              .getGroupManagementApi(RaftPeerId.valueOf(node.nodeId()))
              .info(group)
              .getGroup()
              .getGroupId());
    }
  }

  /** A bare Ratis client with {@code tls}, trusting the cluster's CA, trying once. */
  private static RaftClient rawClient(TlsSettings tls, RaftGroupId group) {
    Parameters parameters = new Parameters();
    GrpcConfigKeys.TLS.setConf(
        parameters,
        new GrpcTlsConfig(tls.privateKey(), tls.certificate(), tls.trustedCertificates(), true));
    return RaftClient.newBuilder()
        .setRaftGroup(
            RaftGroup.valueOf(
                group,
                cluster.peers.entrySet().stream()
                    .map(
                        e ->
                            RaftPeer.newBuilder()
                                .setId(e.getKey())
                                .setAddress(
                                    e.getValue().getHostString() + ":" + e.getValue().getPort())
                                .build())
                    .toList()))
        .setProperties(new RaftProperties())
        .setParameters(parameters)
        .setRetryPolicy(RetryPolicies.noRetry())
        .build();
  }
}
