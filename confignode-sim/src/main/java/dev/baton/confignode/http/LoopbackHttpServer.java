package dev.baton.confignode.http;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * Creates the JDK HTTP servers of the simulation on 127.0.0.1 with TCP_NODELAY on their
 * connections. Without it, every request after the first on a kept-alive connection waited about 40
 * ms: the server writes the response headers and body separately, and Nagle's algorithm holds the
 * body until the client's delayed ACK. Java clients keep connections alive, so each admin API call
 * and each DataNode command paid that wait.
 */
public final class LoopbackHttpServer {
  /** The JDK server's switch for TCP_NODELAY, read once when its configuration class loads. */
  static final String NODELAY_PROPERTY = "sun.net.httpserver.nodelay";

  private LoopbackHttpServer() {}

  public static HttpServer create(int port, int backlog) throws IOException {
    if (System.getProperty(NODELAY_PROPERTY) == null) {
      System.setProperty(NODELAY_PROPERTY, "true");
    }
    return HttpServer.create(
        new InetSocketAddress(InetAddress.getLoopbackAddress(), port), backlog);
  }
}
