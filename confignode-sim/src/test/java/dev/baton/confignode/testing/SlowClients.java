package dev.baton.confignode.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Raw-socket HTTP clients for tests of a server's limits: one that sends a request line and headers
 * a byte at a time, and one that sends a request with any headers (a {@code Host} the JDK client
 * will not send) and reads the status.
 */
public final class SlowClients {
  private SlowClients() {}

  /** Opens a connection to {@code host:port}. */
  public static Socket connect(String host, int port, Duration readTimeout) throws IOException {
    Socket s = new Socket();
    s.connect(new InetSocketAddress(host, port), (int) Duration.ofSeconds(5).toMillis());
    s.setSoTimeout((int) readTimeout.toMillis());
    return s;
  }

  /**
   * Sends the next byte of an endless header ({@code GET / HTTP/1.1}, then {@code X-Drip: aaaa...})
   * on {@code socket}; {@code sent} is how many bytes went before. False once the server closed the
   * connection.
   */
  public static boolean drip(Socket socket, int sent) {
    byte[] start =
        "GET /api/cluster HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Drip: "
            .getBytes(StandardCharsets.US_ASCII);
    try {
      OutputStream out = socket.getOutputStream();
      out.write(sent < start.length ? start[sent] : 'a');
      out.flush();
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Whether the server closed {@code socket}: a read sees its end (or a reset) within the timeout.
   */
  public static boolean closedByServer(Socket socket) {
    try {
      InputStream in = socket.getInputStream();
      while (true) {
        int b = in.read();
        if (b < 0) {
          return true;
        }
      }
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  /**
   * Sends {@code request} (a whole HTTP/1.1 request, {@code Connection: close} in it) and returns
   * the answer's text: status line, headers and body.
   */
  public static String exchange(String host, int port, String request) throws IOException {
    try (Socket s = connect(host, port, Duration.ofSeconds(30))) {
      s.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
      s.getOutputStream().flush();
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** The status code of an answer's text. */
  public static int status(String answer) {
    return Integer.parseInt(answer.substring(answer.indexOf(' ') + 1, answer.indexOf(' ') + 4));
  }
}
