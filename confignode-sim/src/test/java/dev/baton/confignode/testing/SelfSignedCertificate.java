package dev.baton.confignode.testing;

import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Test-only: a self-signed EC certificate for {@code localhost} and {@code 127.0.0.1}, written as
 * the two PEM files a node takes ({@code --http-cert}, {@code --http-key} in PKCS#8). The JDK
 * cannot generate certificates; BouncyCastle builds and signs it.
 */
public record SelfSignedCertificate(Path certificate, Path privateKey) {
  static final Duration VALIDITY = Duration.ofDays(1);
  static final int EC_BITS = 256;
  private static final int PEM_LINE = 64;

  /**
   * Generates a key pair and certificate and writes {@code cert.pem} and {@code key.pem} into
   * {@code dir}.
   */
  public static SelfSignedCertificate write(Path dir) throws IOException {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(EC_BITS);
      KeyPair pair = generator.generateKeyPair();
      X500Name name = new X500Name("CN=localhost");
      Instant now = Instant.now();
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
              name,
              BigInteger.valueOf(now.toEpochMilli()),
              Date.from(now.minus(Duration.ofMinutes(1))),
              Date.from(now.plus(VALIDITY)),
              name,
              pair.getPublic());
      builder.addExtension(
          Extension.subjectAlternativeName,
          false,
          new GeneralNames(
              new GeneralName[] {
                new GeneralName(GeneralName.dNSName, "localhost"),
                new GeneralName(
                    GeneralName.iPAddress, InetAddress.getLoopbackAddress().getHostAddress())
              }));
      X509Certificate cert =
          new JcaX509CertificateConverter()
              .getCertificate(
                  builder.build(
                      new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate())));
      Path certFile = dir.resolve("cert.pem");
      Path keyFile = dir.resolve("key.pem");
      Files.writeString(certFile, pem("CERTIFICATE", cert.getEncoded()), StandardCharsets.US_ASCII);
      Files.writeString(
          keyFile, pem("PRIVATE KEY", pair.getPrivate().getEncoded()), StandardCharsets.US_ASCII);
      return new SelfSignedCertificate(certFile, keyFile);
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IOException("cannot generate a test certificate: " + e, e);
    }
  }

  private static String pem(String type, byte[] der) {
    String base64 =
        Base64.getMimeEncoder(PEM_LINE, "\n".getBytes(StandardCharsets.US_ASCII))
            .encodeToString(der);
    return "-----BEGIN " + type + "-----\n" + base64 + "\n-----END " + type + "-----\n";
  }
}
