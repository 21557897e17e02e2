package dev.baton.consensus.tls;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The TLS material of one party of a cluster (a member or a client): its certificate chain, its
 * private key, and the CA certificates it trusts (the cluster's CA). With it, every Raft connection
 * is mutual TLS: both ends present a certificate of the cluster's CA, and each end checks what the
 * other's names ({@link PeerIdentity}).
 *
 * <p>Files are PEM: the chain one or more {@code CERTIFICATE} blocks, the leaf first; the key one
 * unencrypted PKCS#8 {@code PRIVATE KEY} block (EC, RSA or EdDSA; convert an {@code RSA PRIVATE
 * KEY} or {@code EC PRIVATE KEY} with {@code openssl pkcs8 -topk8 -nocrypt}); the CA file one or
 * more {@code CERTIFICATE} blocks. They are read once, when the settings are made.
 */
public final class TlsSettings {
  private static final Pattern PRIVATE_KEY =
      Pattern.compile("-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");

  /** The key algorithms a PKCS#8 key is tried as, most common first. */
  private static final List<String> KEY_ALGORITHMS = List.of("EC", "RSA", "Ed25519", "Ed448");

  private final List<X509Certificate> chain;
  private final PrivateKey privateKey;
  private final List<X509Certificate> trusted;
  private final String source;

  private TlsSettings(
      List<X509Certificate> chain,
      PrivateKey privateKey,
      List<X509Certificate> trusted,
      String source) {
    if (chain.isEmpty()) {
      throw new IllegalArgumentException("no certificate in " + source);
    }
    if (trusted.isEmpty()) {
      throw new IllegalArgumentException("no CA certificate to trust in " + source);
    }
    this.chain = List.copyOf(chain);
    this.privateKey = Objects.requireNonNull(privateKey, "privateKey");
    this.trusted = List.copyOf(trusted);
    this.source = source;
  }

  /**
   * Reads PEM files: {@code certChain} (this party's certificate, then any intermediates), {@code
   * privateKey} (its key), {@code ca} (the CA certificates to trust).
   *
   * @throws IOException naming the file that is missing or unreadable
   */
  public static TlsSettings fromPem(Path certChain, Path privateKey, Path ca) throws IOException {
    return new TlsSettings(
        readCertificates(certChain),
        readPrivateKey(privateKey),
        readCertificates(ca),
        "certificate " + certChain + ", key " + privateKey + ", CA " + ca);
  }

  /** Settings from certificates and a key in memory. */
  public static TlsSettings of(
      List<X509Certificate> certChain, PrivateKey privateKey, List<X509Certificate> ca) {
    return new TlsSettings(certChain, privateKey, ca, "certificates in memory");
  }

  /** This party's certificate (the first of its chain). */
  public X509Certificate certificate() {
    return chain.get(0);
  }

  /** This party's certificate chain, its own certificate first. */
  public List<X509Certificate> chain() {
    return chain;
  }

  public PrivateKey privateKey() {
    return privateKey;
  }

  /** The CA certificates this party trusts. */
  public List<X509Certificate> trustedCertificates() {
    return trusted;
  }

  /** Where the material came from (the file names), for error messages. */
  public String source() {
    return source;
  }

  /**
   * The identity this party's certificate names.
   *
   * @throws CertificateException if it names none
   */
  public PeerIdentity identity() throws CertificateException {
    return PeerIdentity.of(certificate());
  }

  @Override
  public String toString() {
    return "TlsSettings{" + source + "}";
  }

  static List<X509Certificate> readCertificates(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      List<X509Certificate> out = new ArrayList<>();
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        out.add((X509Certificate) c);
      }
      if (out.isEmpty()) {
        throw new IOException("no PEM certificate in " + file);
      }
      return out;
    } catch (CertificateException e) {
      throw new IOException("cannot read the certificates in " + file + ": " + e.getMessage(), e);
    }
  }

  static PrivateKey readPrivateKey(Path file) throws IOException {
    String text = Files.readString(file, StandardCharsets.US_ASCII);
    Matcher m = PRIVATE_KEY.matcher(text);
    if (!m.find()) {
      throw new IOException(
          "no unencrypted PKCS#8 key (-----BEGIN PRIVATE KEY-----) in "
              + file
              + "; convert another form with: openssl pkcs8 -topk8 -nocrypt -in KEY -out "
              + file);
    }
    byte[] der = Base64.getMimeDecoder().decode(m.group(1));
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
    for (String algorithm : KEY_ALGORITHMS) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (GeneralSecurityException notThisAlgorithm) {
        // try the next
      }
    }
    throw new IOException("the key in " + file + " is not an " + KEY_ALGORITHMS + " key");
  }
}
