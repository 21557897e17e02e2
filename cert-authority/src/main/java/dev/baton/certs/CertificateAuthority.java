package dev.baton.certs;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throwaway certificate authority for drills and tests: a fresh EC P-256 key and a self-signed CA
 * certificate, which issues certificates for what a {@link CertificateRequest} names. Its key lives
 * in memory only: once the certificates of a cluster are written, nobody can issue more in its
 * name. Not for production, where an operator's CA issues (and can revoke) certificates.
 */
public final class CertificateAuthority {
  /** How long issued certificates (and the CA's own) are valid by default. */
  public static final Duration DEFAULT_VALIDITY = Duration.ofDays(365);

  /**
   * Certificates are valid from this long before they were made, so that a machine whose clock is a
   * little behind the issuer's accepts them.
   */
  static final Duration BACKDATE = Duration.ofHours(1);

  static final String KEY_ALGORITHM = "EC";
  static final String CURVE = "secp256r1";
  static final String SIGNATURE_ALGORITHM = "SHA256withECDSA";

  /** Bits of a random serial number (positive, so one bit fewer than a long). */
  static final int SERIAL_BITS = 63;

  private static final SecureRandom RANDOM = new SecureRandom();

  private final KeyPair keys;
  private final X509Certificate certificate;
  private final Duration validity;

  private CertificateAuthority(KeyPair keys, X509Certificate certificate, Duration validity) {
    this.keys = keys;
    this.certificate = certificate;
    this.validity = validity;
  }

  /** A new CA named {@code name} (its subject's CN), valid for {@link #DEFAULT_VALIDITY}. */
  public static CertificateAuthority create(String name) {
    return create(name, DEFAULT_VALIDITY);
  }

  /** A new CA named {@code name}; it and what it issues are valid for {@code validity}. */
  public static CertificateAuthority create(String name, Duration validity) {
    Objects.requireNonNull(name, "name");
    if (validity.isNegative() || validity.isZero()) {
      throw new IllegalArgumentException("a CA's validity must be positive: " + validity);
    }
    KeyPair keys = newKeyPair();
    X500Name subject = subject(name);
    X509v3CertificateBuilder b = builder(subject, subject, keys, validity);
    try {
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
          .addExtension(
              Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    } catch (CertIOException e) {
      throw new IllegalStateException("cannot add the extensions of CA " + name, e);
    }
    return new CertificateAuthority(keys, sign(b, keys.getPrivate()), validity);
  }

  /** The CA's certificate: what every party of the cluster trusts. */
  public X509Certificate certificate() {
    return certificate;
  }

  /** Writes the CA's certificate (PEM) to {@code file}. */
  public void writeCertificate(Path file) throws IOException {
    PemFiles.writeCertificates(file, List.of(certificate));
  }

  /** Issues a certificate with a new key for what {@code request} names. */
  public IssuedCertificate issue(CertificateRequest request) {
    KeyPair subjectKeys = newKeyPair();
    List<GeneralName> names = new ArrayList<>();
    for (String uri : request.uris()) {
      names.add(new GeneralName(GeneralName.uniformResourceIdentifier, uri));
    }
    for (String host : request.hosts()) {
      names.add(
          new GeneralName(
              CertificateRequest.isIpLiteral(host) ? GeneralName.iPAddress : GeneralName.dNSName,
              host));
    }
    List<KeyPurposeId> purposes = new ArrayList<>();
    if (request.usages().contains(Usage.SERVER)) {
      purposes.add(KeyPurposeId.id_kp_serverAuth);
    }
    if (request.usages().contains(Usage.CLIENT)) {
      purposes.add(KeyPurposeId.id_kp_clientAuth);
    }
    X509v3CertificateBuilder b =
        builder(
            subject(certificate.getSubjectX500Principal().getName()),
            subject(request.commonName()),
            subjectKeys,
            validity);
    try {
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
          .addExtension(
              Extension.keyUsage,
              true,
              new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement))
          .addExtension(
              Extension.extendedKeyUsage,
              false,
              new ExtendedKeyUsage(purposes.toArray(new KeyPurposeId[0])))
          .addExtension(
              Extension.authorityKeyIdentifier,
              false,
              new JcaX509ExtensionUtils().createAuthorityKeyIdentifier(certificate));
      if (!names.isEmpty()) {
        b.addExtension(
            Extension.subjectAlternativeName,
            false,
            new GeneralNames(names.toArray(new GeneralName[0])));
      }
    } catch (CertIOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot add the extensions of " + request, e);
    }
    return new IssuedCertificate(sign(b, keys.getPrivate()), subjectKeys.getPrivate(), certificate);
  }

  private static X500Name subject(String name) {
    if (name.contains("=")) {
      return new X500Name(name); // already a distinguished name (the CA's, read back)
    }
    return new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, name).build();
  }

  private static X509v3CertificateBuilder builder(
      X500Name issuer, X500Name subject, KeyPair subjectKeys, Duration validity) {
    Instant now = Instant.now();
    try {
      return new JcaX509v3CertificateBuilder(
              issuer,
              new BigInteger(SERIAL_BITS, RANDOM),
              Date.from(now.minus(BACKDATE)),
              Date.from(now.plus(validity)),
              subject,
              subjectKeys.getPublic())
          .addExtension(
              Extension.subjectKeyIdentifier,
              false,
              new JcaX509ExtensionUtils().createSubjectKeyIdentifier(subjectKeys.getPublic()));
    } catch (CertIOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot start a certificate for " + subject, e);
    }
  }

  private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey issuerKey) {
    try {
      ContentSigner signer = new JcaContentSignerBuilder(SIGNATURE_ALGORITHM).build(issuerKey);
      return new JcaX509CertificateConverter().getCertificate(b.build(signer));
    } catch (OperatorCreationException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot sign a certificate", e);
    }
  }

  private static KeyPair newKeyPair() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance(KEY_ALGORITHM);
      g.initialize(new ECGenParameterSpec(CURVE), RANDOM);
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JVM cannot make " + CURVE + " keys", e);
    }
  }
}
