package dev.baton.it.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.consensus.ProcedureNode;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node listens on a non-loopback address only with TLS, or when insecure exposure was allowed
 * explicitly.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BindAddressTest {
  /** Every interface: not a loopback address. */
  static final String WILDCARD = "0.0.0.0";

  @TempDir Path dir;

  @Test
  void aNonLoopbackBindWithoutTlsIsRefusedUnlessInsecureIsAllowed() throws Exception {
    try (TlsCluster cluster = new TlsCluster(dir, List.of("solo"))) {
      IllegalArgumentException refused =
          assertThrows(
              IllegalArgumentException.class,
              () -> cluster.builder("solo").bindAddress(WILDCARD).build());
      assertTrue(refused.getMessage().contains("not a loopback address"), refused.getMessage());
      assertTrue(refused.getMessage().contains("allowInsecure"), refused.getMessage());

      try (ProcedureNode<Object> insecure =
          cluster.builder("solo").bindAddress(WILDCARD).allowInsecure(true).build()) {
        insecure.start();
        assertEquals(WILDCARD, insecure.bindHost());
        cluster.submitAndFinish(TlsCluster.awaitLeader(List.of(insecure)));
      }
    }
  }

  @Test
  void aNonLoopbackBindWithTlsStarts() throws Exception {
    try (TlsCluster cluster = new TlsCluster(dir, List.of("solo"))) {
      try (ProcedureNode<Object> node =
          cluster
              .builder("solo")
              .bindAddress(WILDCARD)
              .tls(cluster.certs.member("solo").tlsSettings())
              .build()) {
        node.start();
        cluster.submitAndFinish(TlsCluster.awaitLeader(List.of(node)));
      }
    }
  }

  @Test
  void theDefaultBindIsTheNodesOwnHost() throws Exception {
    try (TlsCluster cluster = new TlsCluster(dir, List.of("solo"))) {
      ProcedureNode<Object> node = cluster.builder("solo").build();
      assertEquals("127.0.0.1", node.bindHost());
      node.close();
    }
  }
}
