package dev.baton.confignode.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.certs.IssuedCertificate;
import dev.baton.confignode.certs.ClusterCertificates;
import dev.baton.confignode.http.TlsIdentity;
import dev.baton.consensus.tls.ClientRole;
import dev.baton.consensus.tls.TlsSettings;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A DataNode serving mutual TLS: only a ConfigNode's certificate may send commands, any identity of
 * its CA may read, only an admin client may control faults, and a client without a certificate or
 * with one of another CA fails the handshake; none of the refused ever moves its term.
 */
@Timeout(60)
class DataNodeTlsTest {
  /** The term a forger would send to fence out every future ConfigNode leader. */
  private static final long HUGE_TERM = Long.MAX_VALUE;

  private static final long TERM = 5;

  /** Procedure ids of the deferred connectors' pings, apart from the other tests' ids. */
  private static final long DEFERRED_PROC_ID = 100;

  @TempDir static Path dir;

  private static ClusterCertificates ca;
  private static X509Certificate caCertificate;
  private static TlsSettings dataNodeTls;
  private static DataNodeServer server;
  private static DataNodeConnector configNode;
  private static DataNodeConnector reader;
  private static DataNodeConnector admin;
  private static DataNodeConnector otherDataNode;
  private static DataNodeConnector otherCa;

  @BeforeAll
  static void start() throws IOException {
    ca = ClusterCertificates.create("datanode-tls-test");
    caCertificate = ca.caCertificate();
    List<String> hosts = ClusterCertificates.LOOPBACK_HOSTS;
    dataNodeTls = settings(ca.dataNode("1", hosts), caCertificate);
    server =
        new DataNodeServer(
                DataNodeConfig.of(1, dir.resolve("dn1"))
                    .withGuard(DataNodeGuard.mutualTls(dataNodeTls).withFaults(true)))
            .start();
    configNode = connector(ca.member("cn1", hosts));
    reader = connector(ca.client("tool", ClientRole.READER));
    admin = connector(ca.client("operator-alice", ClientRole.ADMIN));
    otherDataNode = connector(ca.dataNode("2", hosts));
    // a member certificate naming a real ConfigNode id, from a CA the DataNode does not trust
    IssuedCertificate forged =
        ClusterCertificates.create("another-ca").member("cn1", ClusterCertificates.LOOPBACK_HOSTS);
    otherCa = DataNodeConnector.mutualTls(settings(forged, caCertificate));
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static TlsSettings settings(IssuedCertificate mine, X509Certificate trusted) {
    return TlsSettings.of(mine.chain(), mine.privateKey(), List.of(trusted));
  }

  private static DataNodeConnector connector(IssuedCertificate mine) {
    return DataNodeConnector.mutualTls(settings(mine, caCertificate));
  }

  private static CommandContext ping(long term, long procId) {
    return new CommandContext(term, procId, "PING");
  }

  private static long highestTerm() throws Exception {
    return reader.client(server.address()).state().highestTerm();
  }

  @Test
  void aConfigNodeCertificateSendsCommandsAndIsRecordedAsTheirSender() throws Exception {
    DataNodeReply reply = configNode.client(server.address()).ping(ping(TERM, 1));

    assertEquals(TERM, reply.highestTerm());
    DataNodeState state = reader.client(server.address()).state();
    LedgerEntry entry =
        state.ledger().stream().filter(e -> e.procId() == 1).findFirst().orElseThrow();
    assertEquals("cn1", entry.caller(), "the ledger names the ConfigNode that sent the command");
  }

  @Test
  void aDeferredConnectorMadeInTheBackgroundOrByItsFirstCallSendsOverMutualTls() throws Exception {
    TlsSettings cn2 = settings(ca.member("cn2", ClusterCertificates.LOOPBACK_HOSTS), caCertificate);
    DataNodeConnector background = DataNodeConnector.deferred(Optional.of(cn2));
    background.prepareInBackground("datanode-client-test");
    DataNodeConnector firstCall = DataNodeConnector.deferred(Optional.of(cn2));
    long procId = DEFERRED_PROC_ID;
    for (DataNodeConnector deferred : List.of(background, firstCall)) {
      assertTrue(deferred.tls());
      DataNodeReply reply = deferred.client(server.address()).ping(ping(TERM, procId));

      assertEquals(TERM, reply.highestTerm());
      long sent = procId;
      LedgerEntry entry =
          reader.client(server.address()).state().ledger().stream()
              .filter(e -> e.procId() == sent)
              .findFirst()
              .orElseThrow();
      assertEquals("cn2", entry.caller());
      procId++;
    }
  }

  @Test
  void aPingWithAHugeTermFromACertificateThatIsNoConfigNodeIsForbiddenAndChangesNothing()
      throws Exception {
    long before = highestTerm();
    for (DataNodeConnector notAConfigNode : List.of(reader, admin, otherDataNode)) {
      DataNodeException refused =
          assertThrows(
              DataNodeException.class,
              () -> notAConfigNode.client(server.address()).ping(ping(HUGE_TERM, 2)));
      assertEquals(HttpURLConnection.HTTP_FORBIDDEN, refused.status(), refused.getMessage());
      assertEquals(DataNodeErrors.FORBIDDEN, refused.error());
      assertTrue(refused.getMessage().contains("ConfigNode"), refused.getMessage());
    }
    assertEquals(before, highestTerm(), "a refused ping must not raise the highest term");
    assertTrue(
        reader.client(server.address()).state().ledger().stream().noneMatch(e -> e.procId() == 2));
  }

  @Test
  void aClientWithoutACertificateFailsTheHandshake() throws Exception {
    long before = highestTerm();
    HttpClient trustingOnly = HttpClient.newBuilder().sslContext(trusting(caCertificate)).build();
    HttpRequest ping =
        HttpRequest.newBuilder(URI.create("https://" + server.address() + "/ping"))
            .header("Content-Type", "application/json")
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"term\":" + HUGE_TERM + ",\"procId\":3,\"step\":\"PING\"}"))
            .build();

    assertThrows(
        IOException.class, () -> trustingOnly.send(ping, HttpResponse.BodyHandlers.ofString()));
    assertEquals(before, highestTerm());
  }

  @Test
  void plainHttpToATlsDataNodeGetsNoCommandThrough() throws Exception {
    long before = highestTerm();
    assertThrows(
        DataNodeException.class,
        () -> new DataNodeClient(server.address()).ping(ping(HUGE_TERM, 4)));
    assertEquals(before, highestTerm());
  }

  @Test
  void aCertificateOfAnotherCaIsRefused() throws Exception {
    long before = highestTerm();
    DataNodeException refused =
        assertThrows(
            DataNodeException.class,
            () -> otherCa.client(server.address()).ping(ping(HUGE_TERM, 5)));
    assertTrue(refused.noAnswer(), "the handshake fails: " + refused.getMessage());
    assertEquals(before, highestTerm());
  }

  @Test
  void faultControlNeedsAnAdminClientCertificate() throws Exception {
    for (DataNodeConnector notAdmin : List.of(reader, configNode)) {
      DataNodeException refused =
          assertThrows(
              DataNodeException.class, () -> notAdmin.client(server.address()).failNext(1));
      assertEquals(HttpURLConnection.HTTP_FORBIDDEN, refused.status(), refused.getMessage());
    }
    assertEquals(0, reader.client(server.address()).state().faults().failNext());

    assertEquals(2, admin.client(server.address()).failNext(2).failNext());
    assertEquals(0, admin.client(server.address()).resetFaults().failNext());
  }

  @Test
  void withoutFaultsTheFaultRoutesAreNotFound() throws Exception {
    try (DataNodeServer plain =
        new DataNodeServer(DataNodeConfig.of(2, Files.createDirectories(dir.resolve("dn2"))))
            .start()) {
      DataNodeException missing =
          assertThrows(
              DataNodeException.class, () -> new DataNodeClient(plain.address()).failNext(1));
      assertEquals(HttpURLConnection.HTTP_NOT_FOUND, missing.status());
      assertTrue(missing.getMessage().contains("--faults"), missing.getMessage());
    }
  }

  @Test
  void aNonLoopbackBindWithoutTlsIsRefusedUnlessInsecure() throws Exception {
    for (String host : List.of("0.0.0.0", "192.0.2.10")) {
      DataNodeConfig exposed = DataNodeConfig.of(3, dir.resolve("dn3")).withBindHost(host);
      IllegalArgumentException refused =
          assertThrows(IllegalArgumentException.class, () -> new DataNodeServer(exposed).start());
      assertTrue(refused.getMessage().contains("--insecure"), refused.getMessage());
    }
    DataNodeGuard insecure = DataNodeGuard.PLAIN.withAllowInsecure(true);
    insecure.checkBind(3, "0.0.0.0"); // allowed: the server then logs a WARN at start
    DataNodeGuard.mutualTls(dataNodeTls).checkBind(3, "0.0.0.0");
  }

  private static SSLContext trusting(X509Certificate ca) throws Exception {
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(TlsIdentity.trustStore(List.of(ca)));
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, tmf.getTrustManagers(), null);
    return context;
  }
}
