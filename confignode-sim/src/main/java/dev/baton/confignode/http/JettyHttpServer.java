package dev.baton.confignode.http;

import java.io.IOException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.server.handler.QoSHandler;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * An HTTP/1.1 server (Jetty, its core handler API) for one of the simulation's JSON APIs, with
 * every limit of {@link HttpLimits}: a bounded thread pool, a connection limit, an idle timeout and
 * a request-header deadline ({@link HeaderDeadline}), a cap on the request line and headers, and a
 * cap on requests handled at once, beyond which requests wait briefly and then get 503 rather than
 * hang (Jetty's {@code QoSHandler}). Errors the server decides itself are JSON ({@link
 * JsonErrorHandler}). With a {@link TlsIdentity} it speaks HTTPS only, and may require every client
 * to present a certificate of a given CA (mutual TLS).
 *
 * <p>The handler chain is {@code QoSHandler -> the service}; a later console adds its static files
 * and event streams as handlers beside the service (a stream excluded from the request cap, as the
 * {@link Builder#unlimitedPath} paths are).
 */
public final class JettyHttpServer implements AutoCloseable {
  /** Threads accepting connections. */
  static final int ACCEPTORS = 1;

  /** Threads selecting on connections. */
  static final int SELECTORS = 1;

  /** Threads the pool keeps when idle. */
  static final int MIN_THREADS = 4;

  /** How long an idle pool thread above {@link #MIN_THREADS} lives. */
  static final Duration POOL_THREAD_IDLE = Duration.ofSeconds(60);

  /**
   * Connections the kernel queues before the server accepts them (the kernel caps it at its {@code
   * somaxconn}): room for a burst of new connections, such as hundreds of clients starting to wait
   * at once; beyond it the kernel drops their connects, which are retried only after a second.
   */
  static final int ACCEPT_QUEUE = 1024;

  /** How long closing waits for requests in flight before it interrupts them. */
  static final Duration STOP_TIMEOUT = Duration.ofSeconds(1);

  /**
   * The idle timeout of open connections once the connection limit is reached: idle ones make room
   * sooner.
   */
  static final Duration IDLE_TIMEOUT_AT_LIMIT = Duration.ofSeconds(5);

  private final Server server;
  private final boolean tls;
  private final int port;

  private JettyHttpServer(Server server, ServerConnector connector, boolean tls) {
    this.server = server;
    this.tls = tls;
    this.port = connector.getLocalPort();
  }

  /** A server named {@code name} (its threads' names) that runs {@code service}. */
  public static Builder builder(String name, HttpService service) {
    return new Builder(name, service);
  }

  /** What a server is: where it listens, its limits, its TLS identity. */
  public static final class Builder {
    private final String name;
    private final HttpService service;
    private String host = "127.0.0.1";
    private int port;
    private HttpLimits limits = HttpLimits.ADMIN;
    private Optional<TlsIdentity> tls = Optional.empty();
    private List<X509Certificate> clientCa = List.of();
    private final List<String> unlimited = new ArrayList<>();
    private final List<String> unlimitedParameters = new ArrayList<>();
    private final List<MethodAndPath> unlimitedRequests = new ArrayList<>();

    private Builder(String name, HttpService service) {
      this.name = name;
      this.service = service;
    }

    /** Listen on {@code host} (an address or name; {@code 0.0.0.0} is every interface). */
    public Builder bind(String host, int port) {
      this.host = host;
      this.port = port;
      return this;
    }

    public Builder limits(HttpLimits limits) {
      this.limits = limits;
      return this;
    }

    /** HTTPS with this identity; empty for plain HTTP. */
    public Builder tls(Optional<TlsIdentity> identity) {
      this.tls = identity;
      return this;
    }

    /**
     * With {@link #tls}: every client must present a certificate that {@code ca} signed (mutual
     * TLS), or the handshake fails; the handler sees it as {@link HttpCall#peerCertificates()}.
     */
    public Builder requireClientCertificates(List<X509Certificate> ca) {
      if (ca.isEmpty()) {
        throw new IllegalArgumentException("client certificates need a CA to check them against");
      }
      this.clientCa = List.copyOf(ca);
      return this;
    }

    /**
     * Requests to paths of this Jetty path spec (e.g. {@code /faults/*}) skip the cap on requests
     * at once: control paths that must answer while the handlers are all busy.
     */
    public Builder unlimitedPath(String pathSpec) {
      unlimited.add(pathSpec);
      return this;
    }

    /**
     * Requests of {@code method} to exactly {@code path} (e.g. a submission, {@code POST
     * /api/procedures}) skip the cap on requests at once: they wait for the cluster without a
     * thread, so the service bounds how many may wait, not the handler slots.
     */
    public Builder unlimitedRequest(String method, String path) {
      unlimitedRequests.add(new MethodAndPath(method, path));
      return this;
    }

    /**
     * Requests whose query names {@code parameter} (e.g. {@code waitFor} of a long poll) skip the
     * cap on requests at once: they wait for an event without a thread, so the service bounds how
     * many may wait ({@link HttpService#serveAsync}), not the handler slots.
     */
    public Builder unlimitedWithParameter(String parameter) {
      unlimitedParameters.add(parameter);
      return this;
    }

    /** Starts listening; an address in use or a bad host is an IOException naming them. */
    public JettyHttpServer start() throws IOException {
      // the pool's job queue stays Jetty's own: a job is a connection's next read or write, so the
      // connection limit bounds it, and a queue that refuses jobs would drop connections
      // mid-request
      QueuedThreadPool pool =
          new QueuedThreadPool(limits.maxThreads(), MIN_THREADS, (int) POOL_THREAD_IDLE.toMillis());
      pool.setName(name);
      pool.setDaemon(true);
      pool.setStopTimeout(STOP_TIMEOUT.toMillis());
      Server server = new Server(pool);
      server.setStopTimeout(STOP_TIMEOUT.toMillis());

      HttpConfiguration http = new HttpConfiguration();
      http.setRequestHeaderSize(limits.maxRequestHeaderBytes());
      http.setSendServerVersion(false);
      http.setSendXPoweredBy(false);
      HttpConnectionFactory plain = new HttpConnectionFactory(http);
      ServerConnector connector;
      if (tls.isEmpty() && !clientCa.isEmpty()) {
        throw new IllegalStateException("client certificates need TLS: give the server its own");
      }
      if (tls.isPresent()) {
        http.addCustomizer(new SecureRequestCustomizer(false, false, -1, false));
        SslContextFactory.Server ssl = new SslContextFactory.Server();
        ssl.setKeyStore(tls.get().keyStore());
        ssl.setKeyStorePassword(tls.get().password());
        ssl.setKeyManagerPassword(tls.get().password());
        if (!clientCa.isEmpty()) {
          ssl.setTrustStore(TlsIdentity.trustStore(clientCa));
          ssl.setNeedClientAuth(true);
        }
        connector =
            new ServerConnector(
                server,
                ACCEPTORS,
                SELECTORS,
                new SslConnectionFactory(ssl, plain.getProtocol()),
                plain);
      } else {
        connector = new ServerConnector(server, ACCEPTORS, SELECTORS, plain);
      }
      connector.setHost(host);
      connector.setPort(port);
      connector.setIdleTimeout(limits.idleTimeout().toMillis());
      connector.setAcceptQueueSize(ACCEPT_QUEUE);
      connector.addBean(new HeaderDeadline(limits.headerTimeout(), connector.getScheduler()));
      server.addConnector(connector);
      NetworkConnectionLimit connections =
          new NetworkConnectionLimit(limits.maxConnections(), connector);
      connections.setEndPointIdleTimeout(IDLE_TIMEOUT_AT_LIMIT.toMillis());
      server.addBean(connections);

      QoSHandler qos = new QoSHandler(new ServiceHandler(service));
      qos.setMaxRequestCount(limits.maxConcurrentRequests());
      qos.setMaxSuspendedRequestCount(limits.maxWaitingRequests());
      qos.setMaxSuspend(limits.maxWait());
      unlimited.forEach(qos::excludePath);
      for (String parameter : unlimitedParameters) {
        qos.exclude(request -> hasParameter(request.getHttpURI().getQuery(), parameter));
      }
      for (MethodAndPath r : unlimitedRequests) {
        qos.exclude(
            request ->
                r.method().equals(request.getMethod())
                    && r.path().equals(request.getHttpURI().getPath()));
      }
      server.setHandler(qos);
      server.setErrorHandler(new JsonErrorHandler());
      try {
        server.start();
      } catch (Exception e) {
        try {
          server.stop();
        } catch (Exception ignored) {
          // the start failure is what matters
        }
        throw new IOException(
            name + " cannot listen on " + host + ":" + port + ": " + e.getMessage(), e);
      }
      return new JettyHttpServer(server, connector, tls.isPresent());
    }
  }

  /** Whether a raw query ({@code a=1&b}, or null) names {@code parameter}. */
  /** A request's method and exact path. */
  private record MethodAndPath(String method, String path) {}

  static boolean hasParameter(String rawQuery, String parameter) {
    if (rawQuery == null) {
      return false;
    }
    for (String pair : rawQuery.split("&")) {
      int eq = pair.indexOf('=');
      if ((eq < 0 ? pair : pair.substring(0, eq)).equals(parameter)) {
        return true;
      }
    }
    return false;
  }

  /** The port listened on (the chosen one when asked for 0), also once closed. */
  public int port() {
    return port;
  }

  /** {@code https} with a TLS identity, else {@code http}. */
  public String scheme() {
    return tls ? "https" : "http";
  }

  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      // stopping is best effort: the threads are daemons and the port is released either way
      org.slf4j.LoggerFactory.getLogger(JettyHttpServer.class)
          .warn("stopping the HTTP server failed: {}", e.toString());
    }
  }
}
