package dev.baton.confignode.http;

import java.time.Duration;

/**
 * The limits of one HTTP server ({@link JettyHttpServer}): what a client, slow or many, may hold of
 * it. Each has a default for the admin API ({@link #ADMIN}) and the DataNode API ({@link
 * #DATANODE}); tests build smaller ones to reach them quickly.
 *
 * @param maxThreads threads of the server's pool (acceptor, selector and handlers together); its
 *     queue of jobs is bounded too ({@link #maxQueuedJobs})
 * @param maxQueuedJobs jobs the pool queues once every thread is busy; beyond that a job is refused
 *     and its connection closed
 * @param maxConcurrentRequests requests handled at once; the others wait ({@link
 *     #maxWaitingRequests})
 * @param maxWaitingRequests requests that may wait for a handler slot; beyond that a new request is
 *     answered 503 at once
 * @param maxWait how long a request waits for a handler slot before it is answered 503
 * @param maxConnections open connections; beyond that the server stops accepting until one closes
 * @param idleTimeout a connection that sends or takes nothing this long is closed
 * @param headerTimeout a request whose line and headers take longer than this to arrive (a client
 *     dripping them) is cut off
 * @param maxRequestHeaderBytes request line and headers together; larger gets 431
 */
public record HttpLimits(
    int maxThreads,
    int maxConcurrentRequests,
    int maxWaitingRequests,
    Duration maxWait,
    int maxConnections,
    Duration idleTimeout,
    Duration headerTimeout,
    int maxRequestHeaderBytes) {

  /**
   * Threads the pool needs besides the handlers: an acceptor, a selector, and room for requests
   * that bypass the handler limit (control paths) and for writing answers.
   */
  public static final int NON_HANDLER_THREADS = 8;

  /**
   * Connections of the admin API. A client waiting for a procedure holds a connection with its long
   * poll (HTTP/1.1: one request at a time per connection) and its next submission needs another;
   * the admin API keeps up to 1,024 long polls per node (ProcedureRoutes' cap), so its connections
   * cover those, the requests at once and waiting, and the followers' forwards and event streams.
   * Below that, hundreds of waiting clients fill the connections: the server stops accepting, new
   * connections time out in the kernel's queue (each a TLS handshake paid for nothing), and the
   * clients fall back to the followers, which forward; an open loop of 300 procedures/s collapsed
   * so with 256.
   */
  public static final int ADMIN_MAX_CONNECTIONS = 2048;

  /**
   * The admin API: 64 requests at once, as many as a closed loop of 64 clients sends (a read may
   * hold its thread while it waits for the cluster up to the admin API's cluster wait; a submission
   * or a long poll holds none), 64 more waiting up to 2 s, then 503; {@link #ADMIN_MAX_CONNECTIONS}
   * connections; headers within 10 s.
   */
  public static final HttpLimits ADMIN =
      new HttpLimits(
          72,
          64,
          64,
          Duration.ofSeconds(2),
          ADMIN_MAX_CONNECTIONS,
          Duration.ofSeconds(30),
          Duration.ofSeconds(10),
          8 << 10);

  /**
   * The DataNode API: commands are applied one at a time, but a stalled command (fault injection)
   * holds its handler, so there is room for many; reads of state and fault control bypass the
   * limit.
   */
  public static final HttpLimits DATANODE =
      new HttpLimits(
          96,
          64,
          256,
          Duration.ofSeconds(5),
          512,
          Duration.ofSeconds(30),
          Duration.ofSeconds(10),
          8 << 10);

  public HttpLimits {
    positive("maxConcurrentRequests", maxConcurrentRequests);
    positive("maxWaitingRequests", maxWaitingRequests);
    positive("maxConnections", maxConnections);
    positive("maxRequestHeaderBytes", maxRequestHeaderBytes);
    if (maxThreads < maxConcurrentRequests + NON_HANDLER_THREADS) {
      throw new IllegalArgumentException(
          "maxThreads must be at least maxConcurrentRequests + "
              + NON_HANDLER_THREADS
              + " = "
              + (maxConcurrentRequests + NON_HANDLER_THREADS)
              + ", got "
              + maxThreads);
    }
    for (Duration d : new Duration[] {maxWait, idleTimeout, headerTimeout}) {
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(
            "maxWait, idleTimeout and headerTimeout must be positive, got " + d);
      }
    }
  }

  /** These limits with {@code n} requests at once, {@code waiting} waiting up to {@code wait}. */
  public HttpLimits withRequests(int n, int waiting, Duration wait) {
    return new HttpLimits(
        Math.max(maxThreads, n + NON_HANDLER_THREADS),
        n,
        waiting,
        wait,
        maxConnections,
        idleTimeout,
        headerTimeout,
        maxRequestHeaderBytes);
  }

  /** These limits with headers due within {@code timeout}. */
  public HttpLimits withHeaderTimeout(Duration timeout) {
    return new HttpLimits(
        maxThreads,
        maxConcurrentRequests,
        maxWaitingRequests,
        maxWait,
        maxConnections,
        idleTimeout,
        timeout,
        maxRequestHeaderBytes);
  }

  private static void positive(String name, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(name + " must be positive, got " + value);
    }
  }
}
