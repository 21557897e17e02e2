package dev.baton.confignode.datanode;

import dev.baton.confignode.http.TlsIdentity;
import dev.baton.confignode.waits.ConfigNodeWaits;
import dev.baton.consensus.tls.TlsSettings;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a process reaches DataNodes: one HTTP client that every {@link DataNodeClient} it makes
 * shares, speaking plain HTTP, or HTTPS that presents this process' certificate to the DataNode
 * (mutual TLS) and trusts the DataNodes' CA. A ConfigNode presents its member certificate (its
 * {@code --tls-cert}), so its commands are accepted; a tool presents a client certificate, which
 * may read and, as admin, control faults ({@link DataNodeGuard}). Making the HTTP client loads the
 * JDK's TLS defaults, which costs seconds on a busy machine: a process makes it once and keeps it.
 * A ConfigNode makes it {@linkplain #deferred after its start} ({@link #prepareInBackground}), so
 * that the CPU goes to its Raft server first.
 */
public final class DataNodeConnector {
  private static final Logger LOG = LoggerFactory.getLogger(DataNodeConnector.class);

  private static final String TLS_SCHEME = "https";

  private final Supplier<HttpClient> factory;
  private final String scheme;
  private HttpClient http; // guarded by this; made by factory at its first use

  private DataNodeConnector(Supplier<HttpClient> factory, String scheme) {
    this.factory = factory;
    this.scheme = scheme;
  }

  /** Plain HTTP, for DataNodes without TLS. */
  public static DataNodeConnector plain() {
    return deferred(Optional.empty()).made();
  }

  /**
   * HTTPS presenting the certificate of {@code mine} and trusting the CA certificates it trusts;
   * the DataNode's certificate must name the host it is called by.
   */
  public static DataNodeConnector mutualTls(TlsSettings mine) {
    return deferred(Optional.of(mine)).made();
  }

  /**
   * {@link #mutualTls} with {@code mine}, else {@link #plain}, whose HTTP client is made only when
   * the first {@link DataNodeClient} is, or by {@link #prepareInBackground}, whichever comes first.
   */
  public static DataNodeConnector deferred(Optional<TlsSettings> mine) {
    return mine.map(
            tls ->
                new DataNodeConnector(
                    () ->
                        DataNodeClient.builder()
                            .sslContext(
                                TlsIdentity.of(tls.chain(), tls.privateKey())
                                    .mutualContext(tls.trustedCertificates()))
                            .build(),
                    TLS_SCHEME))
        .orElseGet(
            () ->
                new DataNodeConnector(DataNodeClient::newHttpClient, DataNodeClient.PLAIN_SCHEME));
  }

  /**
   * Makes the HTTP client on a daemon thread named {@code threadName}, unless it is made already; a
   * failure is logged, and thrown again by the first {@link #client} call.
   */
  public void prepareInBackground(String threadName) {
    Thread t =
        new Thread(
            () -> {
              try {
                http();
              } catch (RuntimeException e) {
                LOG.error(
                    "the client of DataNodes could not be made ({}); calls to DataNodes will fail"
                        + " until it can: check the node's --tls-* files",
                    e.toString());
              }
            },
            threadName);
    t.setDaemon(true);
    t.start();
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
    return new DataNodeClient(http(), scheme, address, requestTimeout);
  }

  /** This connector, its HTTP client made. */
  private DataNodeConnector made() {
    http();
    return this;
  }

  private synchronized HttpClient http() {
    if (http == null) {
      http = factory.get();
    }
    return http;
  }
}
