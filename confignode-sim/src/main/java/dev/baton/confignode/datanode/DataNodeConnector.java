package dev.baton.confignode.datanode;

import dev.baton.confignode.http.TlsIdentity;
import dev.baton.confignode.waits.ConfigNodeWaits;
import dev.baton.consensus.tls.TlsSettings;
import java.net.http.HttpClient;
import java.time.Duration;

/**
 * How a process reaches DataNodes: one HTTP client that every {@link DataNodeClient} it makes
 * shares, speaking plain HTTP, or HTTPS that presents this process' certificate to the DataNode
 * (mutual TLS) and trusts the DataNodes' CA. A ConfigNode presents its member certificate (its
 * {@code --tls-cert}), so its commands are accepted; a tool presents a client certificate, which
 * may read and, as admin, control faults ({@link DataNodeGuard}). Making one loads the JDK's TLS
 * defaults, which costs seconds on a busy machine: a process makes it once and keeps it.
 */
public final class DataNodeConnector {
  private static final String TLS_SCHEME = "https";

  private final HttpClient http;
  private final String scheme;

  private DataNodeConnector(HttpClient http, String scheme) {
    this.http = http;
    this.scheme = scheme;
  }

  /** Plain HTTP, for DataNodes without TLS. */
  public static DataNodeConnector plain() {
    return new DataNodeConnector(DataNodeClient.newHttpClient(), DataNodeClient.PLAIN_SCHEME);
  }

  /**
   * HTTPS presenting the certificate of {@code mine} and trusting the CA certificates it trusts;
   * the DataNode's certificate must name the host it is called by.
   */
  public static DataNodeConnector mutualTls(TlsSettings mine) {
    TlsIdentity identity = TlsIdentity.of(mine.chain(), mine.privateKey());
    return new DataNodeConnector(
        DataNodeClient.builder()
            .sslContext(identity.mutualContext(mine.trustedCertificates()))
            .build(),
        TLS_SCHEME);
  }

  /** Whether the clients speak HTTPS. */
  public boolean tls() {
    return scheme.equals(TLS_SCHEME);
  }

  /** A client of the DataNode at {@code host:port}, with the default request timeout. */
  public DataNodeClient client(String address) {
    return client(address, ConfigNodeWaits.DATANODE_REQUEST_TIMEOUT);
  }

  /** A client of the DataNode at {@code host:port} whose calls wait {@code requestTimeout}. */
  public DataNodeClient client(String address, Duration requestTimeout) {
    return new DataNodeClient(http, scheme, address, requestTimeout);
  }
}
