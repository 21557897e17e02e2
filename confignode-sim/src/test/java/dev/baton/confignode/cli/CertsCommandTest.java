package dev.baton.confignode.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.auth.Role;
import dev.baton.confignode.auth.TokenFile;
import dev.baton.consensus.tls.PeerIdentity;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class CertsCommandTest {
  @TempDir Path dir;

  private static X509Certificate read(Path pem) throws Exception {
    try (InputStream in = Files.newInputStream(pem)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  @Test
  void writesCertificatesNamingEachNodeAndTokensTheNodesAccept() throws Exception {
    Path out = dir.resolve("certs");
    CliRun r =
        CliRun.main("certs", "--out", out.toString(), "--nodes", "cn1,cn2,cn3", "--datanodes", "2");
    assertEquals(0, r.code(), r::toString);
    for (String id : new String[] {"cn1", "cn2", "cn3"}) {
      Path cert = out.resolve("nodes").resolve(id).resolve("cert.pem");
      assertEquals(PeerIdentity.member(id), PeerIdentity.of(read(cert)), id);
      Path key = out.resolve("nodes").resolve(id).resolve("key.pem");
      assertEquals(
          "rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key)), id);
    }
    assertTrue(Files.exists(out.resolve("datanodes").resolve("2").resolve("cert.pem")));
    TokenFile tokens = TokenFile.read(out.resolve("tokens"));
    for (Role role : Role.values()) {
      String token = Files.readString(out.resolve("token-" + role.label())).strip();
      assertEquals(role, tokens.authenticate(token).orElseThrow().role());
    }
    assertTrue(r.out().contains("node cn2"), r.out());
  }

  @Test
  void anExistingNonEmptyDirectoryIsNeverOverwritten() throws Exception {
    Path out = Files.createDirectories(dir.resolve("used"));
    Files.writeString(out.resolve("ca.pem"), "an operator's CA");
    CliRun r = CliRun.main("certs", "--out", out.toString(), "--nodes", "cn1");
    assertEquals(ConfigNodeCli.EXIT_USAGE, r.code(), r::toString);
    assertTrue(r.err().contains("not empty"), r.err());
    assertEquals("an operator's CA", Files.readString(out.resolve("ca.pem")));
  }
}
