package dev.baton.confignode.http;

import dev.baton.consensus.tls.MemoryKeyStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A server's TLS identity from two PEM files: its certificate chain (the server's certificate
 * first) and its PKCS#8 private key ({@code -----BEGIN PRIVATE KEY-----}, RSA, EC or Ed25519), held
 * in an in-memory KeyStore under a random password ({@link MemoryKeyStore}). Also the trust of this
 * chain's last certificate (its root, or the certificate itself when self-signed), for the clients
 * of a cluster whose nodes share a certificate authority; or, for mutual TLS, a context that
 * presents this identity and trusts a given CA ({@link #mutualContext}).
 */
public final class TlsIdentity {
  private static final Pattern PRIVATE_KEY =
      Pattern.compile("-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");

  private static final List<String> KEY_ALGORITHMS = List.of("RSA", "EC", "Ed25519", "EdDSA");

  private final MemoryKeyStore keys;
  private final List<X509Certificate> chain;

  private TlsIdentity(MemoryKeyStore keys, List<X509Certificate> chain) {
    this.keys = keys;
    this.chain = chain;
  }

  /**
   * Reads the certificate chain and the private key.
   *
   * @throws IOException if a file cannot be read, holds no certificate or no PKCS#8 key, or the key
   *     does not belong to the first certificate; the message names the file
   */
  public static TlsIdentity fromPem(Path certificateChain, Path privateKey) throws IOException {
    List<X509Certificate> chain = readChain(certificateChain);
    PrivateKey key = readKey(privateKey);
    if (!key.getAlgorithm().equals(chain.get(0).getPublicKey().getAlgorithm())
        && !(key.getAlgorithm().startsWith("Ed")
            && chain.get(0).getPublicKey().getAlgorithm().startsWith("Ed"))) {
      throw new IOException(
          "private key "
              + privateKey
              + " is "
              + key.getAlgorithm()
              + " but the certificate in "
              + certificateChain
              + " holds a "
              + chain.get(0).getPublicKey().getAlgorithm()
              + " key");
    }
    try {
      return of(chain, key);
    } catch (IllegalArgumentException e) {
      throw new IOException(
          "cannot hold the key of " + privateKey + " with " + certificateChain + ": " + e, e);
    }
  }

  /**
   * An identity of a certificate chain (its own certificate first) and that certificate's private
   * key, held in memory.
   */
  public static TlsIdentity of(List<X509Certificate> chain, PrivateKey key) {
    if (chain.isEmpty()) {
      throw new IllegalArgumentException("a TLS identity needs a certificate");
    }
    return new TlsIdentity(MemoryKeyStore.of(key, chain), List.copyOf(chain));
  }

  /** The KeyStore holding the key and chain, for the server's TLS context. */
  public KeyStore keyStore() {
    return keys.keyStore();
  }

  /** The KeyStore's (and the key's) password. */
  public String password() {
    return keys.password();
  }

  /** The certificate chain, the server's own first. */
  public List<X509Certificate> chain() {
    return chain;
  }

  /** A client context that trusts this chain's last certificate (and so every node it signed). */
  public SSLContext trustContext() {
    return context(null, trustStore(List.of(chain.get(chain.size() - 1))));
  }

  /** A client's context trusting the certificates of the CA in {@code caPem} (PEM). */
  public static SSLContext trusting(Path caPem) throws IOException {
    return context(null, trustStore(readChain(caPem)));
  }

  /**
   * A context for mutual TLS: it presents this identity (as a client, when a server asks for a
   * certificate) and trusts the certificates {@code ca} signed.
   */
  public SSLContext mutualContext(List<X509Certificate> ca) {
    return context(keys.keyManagers(), trustStore(ca));
  }

  /** A KeyStore holding {@code certificates} as trusted entries, for a trust manager. */
  public static KeyStore trustStore(List<X509Certificate> certificates) {
    try {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      for (int i = 0; i < certificates.size(); i++) {
        trust.setCertificateEntry("ca-" + i, certificates.get(i));
      }
      return trust;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException("cannot trust the certificates " + certificates, e);
    }
  }

  private static SSLContext context(KeyManager[] keys, KeyStore trust) {
    try {
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys, tmf.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot build a TLS context", e);
    }
  }

  private static List<X509Certificate> readChain(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      List<X509Certificate> chain =
          CertificateFactory.getInstance("X.509").generateCertificates(in).stream()
              .map(c -> (X509Certificate) c)
              .toList();
      if (chain.isEmpty()) {
        throw new IOException("certificate file " + file + " holds no certificate");
      }
      return chain;
    } catch (GeneralSecurityException e) {
      throw new IOException(
          "certificate file " + file + " is not a PEM certificate chain: " + e.getMessage(), e);
    }
  }

  private static PrivateKey readKey(Path file) throws IOException {
    String text = Files.readString(file, StandardCharsets.US_ASCII);
    Matcher m = PRIVATE_KEY.matcher(text);
    if (!m.find()) {
      throw new IOException(
          "key file "
              + file
              + " holds no PKCS#8 private key (-----BEGIN PRIVATE KEY-----); convert one with:"
              + " openssl pkcs8 -topk8 -nocrypt -in KEY -out "
              + file);
    }
    byte[] der;
    try {
      der = Base64.getMimeDecoder().decode(m.group(1));
    } catch (IllegalArgumentException e) {
      throw new IOException("key file " + file + " is not valid base64 inside its PEM block", e);
    }
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
    for (String algorithm : KEY_ALGORITHMS) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (InvalidKeySpecException | java.security.NoSuchAlgorithmException e) {
        // try the next algorithm
      }
    }
    throw new IOException(
        "key file " + file + " holds a private key of none of the algorithms " + KEY_ALGORITHMS);
  }
}
