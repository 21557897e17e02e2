package dev.baton.consensus.tls;

import java.util.Locale;

/**
 * What a client certificate lets its holder do with the cluster's Raft service; the role a
 * certificate carries is named in it as {@link PeerIdentity} describes.
 */
public enum ClientRole {
  /** Reads procedures and metadata (linearizable or stale reads, watches); writes nothing. */
  READER,
  /** Reads, and submits and aborts procedures. */
  OPERATOR,
  /**
   * What an operator does, and Ratis' administration: membership, leadership transfer, group
   * management, snapshots, election control.
   */
  ADMIN;

  /** Whether this role may append to the log (submit, abort). */
  public boolean mayWrite() {
    return this != READER;
  }

  /** Whether this role may call Ratis' admin service. */
  public boolean mayAdminister() {
    return this == ADMIN;
  }

  /** The role's name in a certificate: {@code reader}, {@code operator}, {@code admin}. */
  public String certificateName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The role named {@code name} in a certificate (as {@link #certificateName}), or null. */
  static ClientRole fromCertificateName(String name) {
    for (ClientRole r : values()) {
      if (r.certificateName().equals(name)) {
        return r;
      }
    }
    return null;
  }
}
