package dev.baton.confignode.client;

import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.SSLContext;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.ManagedHttpClientConnectionFactory;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.ssl.DefaultClientTlsStrategy;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpHeaders;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.impl.DefaultConnectionReuseStrategy;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.pool.PoolReusePolicy;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * Blocking HTTP/1.1 exchanges on kept-alive connections, each on the calling thread (Apache
 * HttpClient's classic API over a pool of connections per node). A connection goes back to its
 * node's pool after a complete answer unless either side said {@code Connection: close}, and is
 * used again only while it has been idle for less than {@link #MAX_IDLE}. With TLS, the node's
 * certificate is checked against its address as an HTTPS client does.
 *
 * <p>What it saves against the JDK's {@code HttpClient}: that client hands every request and answer
 * between the caller, its selector thread and its executor, which cost a closed-loop client of the
 * admin API about as much CPU as the node's own handling of the request.
 */
final class KeepAliveConnections implements Closeable {
  /**
   * A connection idle longer than this is closed rather than used: well below the shortest idle
   * timeout of the admin API ({@code JettyHttpServer.IDLE_TIMEOUT_AT_LIMIT}, 5 s), so a request is
   * not sent on a connection the node is closing (a POST that fails so is not sent again here).
   */
  static final Duration MAX_IDLE = Duration.ofSeconds(2);

  /**
   * Which idle connection a request takes: the one idle longest (first in, first out), so requests
   * go round all the pooled connections and each is used again well within {@link #MAX_IDLE} while
   * the load lasts. With the library's default (the one idle shortest, last in, first out) a steady
   * load keeps only as many connections warm as it has in flight at its quietest; the others idle
   * out, and the next burst of requests in flight (a moment the node is slower) opens them again,
   * each a TCP connect and a TLS handshake on the node when it has the least CPU to spare.
   */
  static final PoolReusePolicy REUSE = PoolReusePolicy.FIFO;

  /** Bytes of an answer's body, at most. */
  static final int MAX_BODY = 64 << 20;

  /**
   * Connections to one node at most: as many as the admin API accepts ({@code
   * HttpLimits.ADMIN_MAX_CONNECTIONS}); a caller holds one per request in flight.
   */
  static final int MAX_CONNECTIONS_PER_NODE = 2_048;

  /** A GET that failed on a kept-alive connection the node had closed is sent once more. */
  private static final int IDEMPOTENT_RETRIES = 1;

  /** A request body's type, as the JDK client's calls declare it (no charset parameter). */
  private static final ContentType JSON = ContentType.create("application/json");

  /**
   * One answer: its status, its body and the leader the node named ({@link
   * NodeApiClient#LEADER_HEADER}), if any.
   */
  record Answer(int status, byte[] body, Optional<String> leader) {}

  private final CloseableHttpClient http;
  private final String scheme;
  private final Timeout connectTimeout;
  private final LongAdder opened = new LongAdder();

  KeepAliveConnections(Optional<SSLContext> tls, Duration connectTimeout) {
    this(tls, connectTimeout, MAX_IDLE);
  }

  /**
   * @param maxIdle how long a connection may have been idle and still be used; zero: a connection
   *     serves one exchange
   */
  KeepAliveConnections(Optional<SSLContext> tls, Duration connectTimeout, Duration maxIdle) {
    this.scheme = tls.isPresent() ? "https" : "http";
    this.connectTimeout = Timeout.of(connectTimeout);
    PoolingHttpClientConnectionManagerBuilder pool =
        PoolingHttpClientConnectionManagerBuilder.create()
            .setMaxConnPerRoute(MAX_CONNECTIONS_PER_NODE)
            .setMaxConnTotal(MAX_CONNECTIONS_PER_NODE)
            .setConnPoolPolicy(REUSE)
            .setConnectionFactory(
                socket -> {
                  opened.increment();
                  return ManagedHttpClientConnectionFactory.INSTANCE.createConnection(socket);
                })
            .setDefaultConnectionConfig(
                ConnectionConfig.custom().setConnectTimeout(this.connectTimeout).build());
    tls.ifPresent(context -> pool.setTlsSocketStrategy(new DefaultClientTlsStrategy(context)));
    PoolingHttpClientConnectionManager connections = pool.build();
    TimeValue keepIdle = TimeValue.of(maxIdle);
    this.http =
        HttpClients.custom()
            .setConnectionManager(connections)
            .setConnectionReuseStrategy(
                TimeValue.isPositive(keepIdle)
                    ? DefaultConnectionReuseStrategy.INSTANCE
                    : (request, response, context) -> false)
            .setKeepAliveStrategy((response, context) -> keepIdle)
            .setRetryStrategy(new StaleConnectionRetry())
            .disableCookieManagement()
            .disableAuthCaching()
            .disableContentCompression()
            .disableRedirectHandling()
            .build();
  }

  /**
   * Sends a GET again, once, after it failed on a kept-alive connection the node had closed (the
   * library's default for idempotent requests); never resends on an answer (a 503 or 429 goes to
   * the caller, which fails over as with any refusal).
   */
  private static final class StaleConnectionRetry extends DefaultHttpRequestRetryStrategy {
    StaleConnectionRetry() {
      super(IDEMPOTENT_RETRIES, TimeValue.ZERO_MILLISECONDS);
    }

    @Override
    public boolean retryRequest(HttpResponse response, int execCount, HttpContext context) {
      return false;
    }
  }

  /**
   * Sends one request to {@code node} ({@code host:port}) and reads its answer within {@code
   * timeout}. A GET that fails on a kept-alive connection (the node closed it while it was idle) is
   * sent once more on a new one; any other failure is thrown.
   *
   * @param authorization the {@code Authorization} header's value, if any
   * @param json the request's JSON body, or null for none
   */
  Answer exchange(
      String node,
      String method,
      String path,
      Optional<String> authorization,
      byte[] json,
      Duration timeout)
      throws IOException {
    HttpUriRequestBase request =
        new HttpUriRequestBase(method, URI.create(scheme + "://" + node + path));
    authorization.ifPresent(a -> request.addHeader(HttpHeaders.AUTHORIZATION, a));
    if (json != null) {
      request.setEntity(new ByteArrayEntity(json, JSON));
    }
    request.setConfig(
        RequestConfig.custom()
            .setConnectionRequestTimeout(connectTimeout)
            .setResponseTimeout(Timeout.of(timeout))
            .setRedirectsEnabled(false)
            .build());
    return http.execute(
        request,
        response -> {
          HttpEntity entity = response.getEntity();
          byte[] bytes = entity == null ? new byte[0] : EntityUtils.toByteArray(entity, MAX_BODY);
          Header leader = response.getFirstHeader(NodeApiClient.LEADER_HEADER);
          return new Answer(
              response.getCode(), bytes, Optional.ofNullable(leader).map(Header::getValue));
        });
  }

  /**
   * Connections opened so far (each a TCP connect and, with TLS, a handshake), kept-alive ones used
   * again not counted.
   */
  long opened() {
    return opened.sum();
  }

  /** Closes every connection; exchanges in flight fail. */
  @Override
  public void close() {
    http.close(CloseMode.IMMEDIATE);
  }
}
