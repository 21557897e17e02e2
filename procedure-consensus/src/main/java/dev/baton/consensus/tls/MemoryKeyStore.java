package dev.baton.consensus.tls;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.spec.PBEParameterSpec;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.X509KeyManager;

/**
 * A PKCS#12 KeyStore that lives in memory only, holding one private key and its certificate chain,
 * for the JDK's key managers (a TLS context takes its key from a KeyStore, not from a key).
 *
 * <p>A PKCS#12 store encrypts a key when it is set and decrypts it again when a key manager reads
 * it, by default through PBKDF2 at 10,000 iterations of HMAC-SHA256: milliseconds once compiled,
 * but a process that just started runs it interpreted and compiles it on the way (a ConfigNode's
 * start cost 0.4 of its 2.0 CPU-seconds in it, for its admin API's, its DataNode client's and every
 * Raft TLS context's copy of its key). This store is never written anywhere and its password lies
 * in the same memory as the key it would protect, so the iterations protect nothing: it keeps the
 * key under {@link #KEY_PROTECTION_ITERATIONS}.
 */
public final class MemoryKeyStore {
  /** The alias of the key. */
  public static final String ALIAS = "key";

  /** The JDK's PKCS#12 default key protection, kept (only the iteration count is not). */
  static final String KEY_PROTECTION_ALGORITHM = "PBEWithHmacSHA256AndAES_256";

  /**
   * Iterations of the key's password-based encryption: one, for the store is never written and its
   * password is held beside it (see the class comment); PKCS#12 needs some protection.
   */
  static final int KEY_PROTECTION_ITERATIONS = 1;

  /** Salt of the key's protection: PKCS#12's length; random, though nothing depends on it. */
  static final int SALT_BYTES = 20;

  /** Random bytes of the store's password, written out in hex. */
  static final int PASSWORD_BYTES = 16;

  private static final SecureRandom RANDOM = new SecureRandom();

  private final KeyStore keyStore;
  private final char[] password;

  private MemoryKeyStore(KeyStore keyStore, char[] password) {
    this.keyStore = keyStore;
    this.password = password;
  }

  /**
   * A store of {@code key} and {@code chain} (its certificate first) under {@link #ALIAS} and a
   * random password.
   *
   * @throws IllegalArgumentException if the chain is empty or the JDK cannot hold the key
   */
  public static MemoryKeyStore of(PrivateKey key, List<X509Certificate> chain) {
    if (chain.isEmpty()) {
      throw new IllegalArgumentException("a key store entry needs the key's certificate");
    }
    byte[] random = new byte[PASSWORD_BYTES];
    RANDOM.nextBytes(random);
    char[] password = HexFormat.of().formatHex(random).toCharArray();
    byte[] salt = new byte[SALT_BYTES];
    RANDOM.nextBytes(salt);
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setEntry(
          ALIAS,
          new KeyStore.PrivateKeyEntry(key, chain.toArray(new Certificate[0])),
          new KeyStore.PasswordProtection(
              password,
              KEY_PROTECTION_ALGORITHM,
              new PBEParameterSpec(salt, KEY_PROTECTION_ITERATIONS)));
      return new MemoryKeyStore(store, password);
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException(
          "cannot hold the key of " + chain.get(0).getSubjectX500Principal() + ": " + e, e);
    }
  }

  public KeyStore keyStore() {
    return keyStore;
  }

  /** The store's password, which is also the key's. */
  public String password() {
    return new String(password);
  }

  /** Key managers of the JDK's default algorithm presenting the key. */
  public KeyManager[] keyManagers() {
    try {
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(keyStore, password);
      return kmf.getKeyManagers();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot present the key under " + ALIAS, e);
    }
  }

  /** The X.509 key manager presenting the key (one of {@link #keyManagers}). */
  public X509KeyManager x509KeyManager() {
    for (KeyManager k : keyManagers()) {
      if (k instanceof X509KeyManager x) {
        return x;
      }
    }
    throw new IllegalStateException("this JVM's key managers are not X509KeyManager");
  }
}
