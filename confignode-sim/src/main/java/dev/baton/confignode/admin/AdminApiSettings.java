package dev.baton.confignode.admin;

import dev.baton.confignode.auth.TokenFile;
import dev.baton.confignode.http.AllowedHosts;
import dev.baton.confignode.http.HttpLimits;
import dev.baton.confignode.http.TlsIdentity;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * How a node's admin API is reached and guarded.
 *
 * @param bindHost the address it listens on ({@value #DEFAULT_BIND} by default; {@code 0.0.0.0} is
 *     every interface)
 * @param hostNames further names clients use in the {@code Host} header ({@link AllowedHosts})
 * @param tls the certificate and key of HTTPS, or empty for plain HTTP
 * @param tokens the principals allowed, or empty: then every request is served as the anonymous
 *     admin, which only a loopback bind allows
 * @param auditLog the audit log file, or empty for {@code DATA_DIR/audit/audit.log}
 * @param limits the HTTP server's limits
 */
public record AdminApiSettings(
    String bindHost,
    List<String> hostNames,
    Optional<TlsIdentity> tls,
    Optional<TokenFile> tokens,
    Optional<Path> auditLog,
    HttpLimits limits) {
  public static final String DEFAULT_BIND = "127.0.0.1";

  /** Plain HTTP on 127.0.0.1, no tokens, the default audit log and limits. */
  public static final AdminApiSettings LOOPBACK =
      new AdminApiSettings(
          DEFAULT_BIND,
          List.of(),
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          HttpLimits.ADMIN);

  /** Where the audit log goes under a node's data directory by default. */
  public static final String AUDIT_LOG = "audit/audit.log";

  public AdminApiSettings {
    hostNames = List.copyOf(hostNames);
    if (tokens.isEmpty() && !AllowedHosts.isLoopback(bindHost)) {
      throw new IllegalArgumentException(
          "the admin API would listen on "
              + bindHost
              + ", which is not a loopback address, without tokens: anyone who can reach it could"
              + " run procedures; give a token file (--tokens FILE) or bind to 127.0.0.1");
    }
  }

  public AdminApiSettings withTokens(TokenFile file) {
    return new AdminApiSettings(bindHost, hostNames, tls, Optional.of(file), auditLog, limits);
  }

  public AdminApiSettings withTls(TlsIdentity identity) {
    return new AdminApiSettings(
        bindHost, hostNames, Optional.of(identity), tokens, auditLog, limits);
  }

  public AdminApiSettings withLimits(HttpLimits newLimits) {
    return new AdminApiSettings(bindHost, hostNames, tls, tokens, auditLog, newLimits);
  }

  public AdminApiSettings withAuditLog(Path file) {
    return new AdminApiSettings(bindHost, hostNames, tls, tokens, Optional.of(file), limits);
  }

  /** The audit log of a node whose data directory is {@code dataDir}. */
  public Path auditLogIn(Path dataDir) {
    return auditLog.orElse(dataDir.resolve(AUDIT_LOG));
  }

  /**
   * The host other nodes reach this admin API by: the first host name given, else the bind address,
   * else (bound to every interface) loopback.
   */
  public String advertisedHost() {
    if (!hostNames.isEmpty()) {
      return hostNames.get(0);
    }
    if (bindHost.equals("0.0.0.0") || bindHost.equals("::") || bindHost.equals("[::]")) {
      return DEFAULT_BIND;
    }
    return bindHost.contains(":") && !bindHost.startsWith("[") ? "[" + bindHost + "]" : bindHost;
  }
}
