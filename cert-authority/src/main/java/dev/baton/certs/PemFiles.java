package dev.baton.certs;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Set;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;

/**
 * Writes certificates and keys as PEM files. Keys are PKCS#8 ({@code BEGIN PRIVATE KEY}, what the
 * JDK, Netty and OpenSSL read alike) in files only their owner can read or write (0600).
 */
public final class PemFiles {
  /** A private key file's permissions: the owner reads and writes, nobody else anything. */
  static final Set<PosixFilePermission> KEY_PERMISSIONS =
      PosixFilePermissions.fromString("rw-------");

  private PemFiles() {}

  /** Writes {@code certificates} to {@code file}, one PEM block each, in order. */
  public static void writeCertificates(Path file, List<X509Certificate> certificates)
      throws IOException {
    StringWriter text = new StringWriter();
    try (JcaPEMWriter pem = new JcaPEMWriter(text)) {
      for (X509Certificate c : certificates) {
        pem.writeObject(c);
      }
    }
    createParent(file);
    Files.writeString(file, text.toString(), StandardCharsets.US_ASCII);
  }

  /** Writes {@code key} to {@code file} (PKCS#8 PEM, mode 0600 where the file system has modes). */
  public static void writePrivateKey(Path file, PrivateKey key) throws IOException {
    StringWriter text = new StringWriter();
    try (JcaPEMWriter pem = new JcaPEMWriter(text)) {
      pem.writeObject(new JcaPKCS8Generator(key, null));
    }
    createParent(file);
    Files.deleteIfExists(file); // a new file, so that it never exists with wider permissions
    if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      Files.createFile(file, PosixFilePermissions.asFileAttribute(KEY_PERMISSIONS));
    } else {
      Files.createFile(file);
    }
    Files.writeString(
        file,
        text.toString(),
        StandardCharsets.US_ASCII,
        StandardOpenOption.TRUNCATE_EXISTING,
        StandardOpenOption.WRITE);
  }

  private static void createParent(Path file) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
  }
}
