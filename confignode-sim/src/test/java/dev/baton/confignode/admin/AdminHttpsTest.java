package dev.baton.confignode.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.auth.Role;
import dev.baton.confignode.certs.CertificateFiles;
import dev.baton.confignode.certs.ClusterCertificates;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.http.TlsIdentity;
import dev.baton.confignode.node.ConfigNodeServer;
import dev.baton.confignode.procedures.ProcedureLimits;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.confignode.testing.TestTokens;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node given a certificate and key (PEM) serves its admin API over HTTPS only: a client that
 * trusts the certificate submits and reads with a token, a follower forwards to the leader over
 * HTTPS, and plain HTTP gets no API.
 */
@Timeout(120)
class AdminHttpsTest {
  /** The certificate every node of the test serves its admin API with. */
  private static final String NODE_CERTIFICATE = "cn";

  @TempDir Path dir;

  @Test
  void aNodeWithACertificateServesHttpsAndForwardsOverIt() throws Exception {
    CertificateFiles cert =
        ClusterCertificates.write(
                Files.createDirectory(dir.resolve("tls")),
                List.of(NODE_CERTIFICATE),
                0,
                ClusterCertificates.LOOPBACK_HOSTS)
            .member(NODE_CERTIFICATE);
    TlsIdentity identity = TlsIdentity.fromPem(cert.cert(), cert.key());
    String admin = TestTokens.TOKENS.get(Role.ADMIN);
    AdminApiSettings api =
        AdminApiSettings.LOOPBACK.withTokens(TestTokens.write(dir)).withTls(identity);
    try (SimCluster cluster =
        SimCluster.start(
            dir,
            2,
            0,
            false,
            ProcedureLimits.DEFAULTS,
            api,
            admin,
            ConfigNodeServer.Config.DEFAULT_BREAK_DEADLOCKS)) {
      ConfigNodeServer leader = cluster.leader();
      assertEquals("https", leader.httpScheme());
      NodeApiClient client =
          new NodeApiClient(List.of(SimCluster.http(leader)))
              .withTls(identity.trustContext())
              .withToken(admin);
      JsonNode info = client.cluster(SimCluster.http(leader));
      assertEquals("LEADER_RUNNING", info.path("role").asText(), info.toString());
      long id = client.submit("Noop", null, null, null);
      assertTrue(id > 0);

      String follower = SimCluster.http(cluster.follower());
      JsonNode locks =
          SimCluster.retrying(
              () ->
                  new NodeApiClient(List.of(follower))
                      .withTls(identity.trustContext())
                      .withToken(admin)
                      .get("/api/locks"));
      assertEquals(leader.node().nodeId(), locks.path("nodeId").asText(), locks.toString());

      HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      HttpRequest overHttp =
          HttpRequest.newBuilder(URI.create("http://" + SimCluster.http(leader) + "/api/cluster"))
              .header("Authorization", "Bearer " + admin)
              .timeout(Duration.ofSeconds(10))
              .build();
      try {
        HttpResponse<String> r = plain.send(overHttp, HttpResponse.BodyHandlers.ofString());
        assertTrue(r.statusCode() >= 400 && !r.body().contains("LEADER"), r.body());
      } catch (IOException refused) {
        // the TLS connector closed the plain connection: no API over HTTP either way
      }
      assertThrows(
          NodeApiClient.ApiException.class,
          () ->
              new NodeApiClient(List.of(SimCluster.http(leader)))
                  .withToken(admin)
                  .cluster(SimCluster.http(leader)));
    }
  }
}
