package dev.baton.confignode.client;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * Blocking HTTP/1.1 exchanges on kept-alive connections, each on the calling thread: a request is
 * written in one piece, its answer read with a {@code Content-Length} or chunked body. A connection
 * is taken from the node's idle ones (or opened, with TLS when given: the node's certificate is
 * checked against its address as an HTTPS client does) and given back after a complete answer
 * unless either side said {@code Connection: close}.
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

  /** Bytes of a status line or header line, at most. */
  static final int MAX_LINE = 8 << 10;

  /** Bytes of an answer's body, at most. */
  static final int MAX_BODY = 64 << 20;

  private static final int HTTP_CHUNK_RADIX = 16;
  private static final int HTTP_NO_CONTENT = 204;
  private static final int HTTP_NOT_MODIFIED = 304;

  /** One answer: its status and body. */
  record Answer(int status, byte[] body) {}

  private final Optional<SSLContext> tls;
  private final Duration connectTimeout;
  private final long maxIdleNanos;
  private final Map<String, Deque<Connection>> idle = new ConcurrentHashMap<>();
  private volatile boolean closed;

  KeepAliveConnections(Optional<SSLContext> tls, Duration connectTimeout) {
    this(tls, connectTimeout, MAX_IDLE);
  }

  /**
   * @param maxIdle how long a connection may have been idle and still be used
   */
  KeepAliveConnections(Optional<SSLContext> tls, Duration connectTimeout, Duration maxIdle) {
    this.tls = tls;
    this.connectTimeout = connectTimeout;
    this.maxIdleNanos = maxIdle.toNanos();
  }

  /**
   * Sends one request to {@code node} ({@code host:port}) and reads its answer within {@code
   * timeout} of each read. A GET that fails on a kept-alive connection (the node closed it while it
   * was idle) is sent once more on a new one; any other failure is thrown.
   *
   * @param headers header lines without the line end ({@code Name: value})
   * @param body the request body, or null for none
   */
  Answer exchange(
      String node, String method, String path, List<String> headers, byte[] body, Duration timeout)
      throws IOException {
    Connection reused = freshIdle(node);
    if (reused != null) {
      try {
        return exchangeOn(reused, node, method, path, headers, body, timeout);
      } catch (IOException e) {
        if (!method.equals("GET") || e instanceof SocketTimeoutException) {
          throw e;
        }
      }
    }
    return exchangeOn(open(node), node, method, path, headers, body, timeout);
  }

  /** The node's most recently used idle connection, closing any idle too long; null if none. */
  private Connection freshIdle(String node) {
    Deque<Connection> q = idle.computeIfAbsent(node, n -> new ConcurrentLinkedDeque<>());
    long now = System.nanoTime();
    for (Connection c = q.pollFirst(); c != null; c = q.pollFirst()) {
      if (now - c.idleSince < maxIdleNanos) {
        return c;
      }
      c.close();
    }
    return null;
  }

  private Answer exchangeOn(
      Connection c,
      String node,
      String method,
      String path,
      List<String> headers,
      byte[] body,
      Duration timeout)
      throws IOException {
    boolean keep = false;
    try {
      c.socket.setSoTimeout(Math.toIntExact(Math.max(1, timeout.toMillis())));
      StringBuilder head = new StringBuilder(256);
      head.append(method).append(' ').append(path).append(" HTTP/1.1\r\n");
      head.append("Host: ").append(node).append("\r\n");
      for (String h : headers) {
        head.append(h).append("\r\n");
      }
      if (body != null) {
        head.append("Content-Length: ").append(body.length).append("\r\n");
      }
      head.append("\r\n");
      byte[] headBytes = head.toString().getBytes(StandardCharsets.ISO_8859_1);
      byte[] request = new byte[headBytes.length + (body == null ? 0 : body.length)];
      System.arraycopy(headBytes, 0, request, 0, headBytes.length);
      if (body != null) {
        System.arraycopy(body, 0, request, headBytes.length, body.length);
      }
      c.out.write(request);
      c.out.flush();
      Answer answer = read(c, method.equals("HEAD"));
      keep = c.keepAlive && !closed;
      return answer;
    } finally {
      if (keep) {
        c.idleSince = System.nanoTime();
        idle.computeIfAbsent(node, n -> new ConcurrentLinkedDeque<>()).addFirst(c);
      } else {
        c.close();
      }
    }
  }

  private Connection open(String node) throws IOException {
    int colon = node.lastIndexOf(':');
    String host = node.substring(0, colon);
    int port = Integer.parseInt(node.substring(colon + 1));
    Socket plain = new Socket();
    try {
      plain.setTcpNoDelay(true);
      plain.connect(new InetSocketAddress(host, port), Math.toIntExact(connectTimeout.toMillis()));
      Socket socket = plain;
      if (tls.isPresent()) {
        SSLSocket ssl =
            (SSLSocket) tls.get().getSocketFactory().createSocket(plain, host, port, true);
        SSLParameters params = ssl.getSSLParameters();
        params.setEndpointIdentificationAlgorithm("HTTPS");
        if (!Character.isDigit(host.charAt(0)) && host.indexOf(':') < 0) {
          params.setServerNames(List.of(new SNIHostName(host)));
        }
        ssl.setSSLParameters(params);
        ssl.setSoTimeout(Math.toIntExact(connectTimeout.toMillis()));
        ssl.startHandshake();
        socket = ssl;
      }
      return new Connection(socket);
    } catch (IOException | RuntimeException e) {
      plain.close();
      throw e;
    }
  }

  /** Reads one answer: status line, headers, body. */
  private static Answer read(Connection c, boolean noBody) throws IOException {
    String status = c.line();
    if (!status.startsWith("HTTP/1.")) {
      throw new IOException("not an HTTP/1.x answer: " + status);
    }
    int space = status.indexOf(' ');
    int status3 = space + 4;
    if (space < 0 || status.length() < status3) {
      throw new IOException("malformed status line: " + status);
    }
    int code;
    try {
      code = Integer.parseInt(status.substring(space + 1, status3));
    } catch (NumberFormatException e) {
      throw new IOException("malformed status line: " + status, e);
    }
    long length = -1;
    boolean chunked = false;
    boolean keepAlive = !status.startsWith("HTTP/1.0");
    for (String h = c.line(); !h.isEmpty(); h = c.line()) {
      int colon = h.indexOf(':');
      if (colon <= 0) {
        continue;
      }
      String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = h.substring(colon + 1).trim();
      switch (name) {
        case "content-length" -> length = Long.parseLong(value);
        case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
        case "connection" -> keepAlive = !value.equalsIgnoreCase("close");
        default -> {}
      }
    }
    byte[] body;
    if (noBody || code == HTTP_NO_CONTENT || code == HTTP_NOT_MODIFIED) {
      body = new byte[0];
    } else if (chunked) {
      body = c.chunked();
    } else if (length >= 0) {
      if (length > MAX_BODY) {
        throw new IOException("answer body of " + length + " bytes; at most " + MAX_BODY);
      }
      body = c.in.readNBytes((int) length);
      if (body.length != length) {
        throw new EOFException("answer body cut off at " + body.length + " of " + length);
      }
    } else { // the body ends with the connection
      body = c.in.readNBytes(MAX_BODY);
      keepAlive = false;
    }
    c.keepAlive = keepAlive;
    return new Answer(code, body);
  }

  /** Closes every idle connection; connections in use close when their exchange ends. */
  @Override
  public void close() {
    closed = true;
    for (Deque<Connection> q : idle.values()) {
      for (Connection c = q.pollFirst(); c != null; c = q.pollFirst()) {
        c.close();
      }
    }
  }

  /** One connection to a node. */
  private static final class Connection {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private boolean keepAlive;
    private long idleSince;

    Connection(Socket socket) throws IOException {
      this.socket = socket;
      this.in = new BufferedInputStream(socket.getInputStream());
      this.out = socket.getOutputStream();
    }

    /** One line without its CRLF (or LF); EOF before any byte is an error. */
    String line() throws IOException {
      ByteArrayOutputStream line = new ByteArrayOutputStream(64);
      while (true) {
        int b = in.read();
        if (b < 0) {
          throw new EOFException("connection closed by the node");
        }
        if (b == '\n') {
          break;
        }
        if (line.size() >= MAX_LINE) {
          throw new IOException("answer line longer than " + MAX_LINE + " bytes");
        }
        line.write(b);
      }
      String s = line.toString(StandardCharsets.ISO_8859_1);
      return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
    }

    /** A chunked body, its trailer skipped. */
    byte[] chunked() throws IOException {
      List<byte[]> parts = new ArrayList<>();
      long total = 0;
      while (true) {
        String sizeLine = line();
        int semi = sizeLine.indexOf(';');
        int size;
        try {
          size =
              Integer.parseInt(
                  (semi < 0 ? sizeLine : sizeLine.substring(0, semi)).trim(), HTTP_CHUNK_RADIX);
        } catch (NumberFormatException e) {
          throw new IOException("malformed chunk size: " + sizeLine, e);
        }
        if (size == 0) {
          for (String t = line(); !t.isEmpty(); t = line()) {
            // a trailer field: not used
          }
          break;
        }
        total += size;
        if (total > MAX_BODY) {
          throw new IOException("answer body over " + MAX_BODY + " bytes");
        }
        byte[] part = in.readNBytes(size);
        if (part.length != size) {
          throw new EOFException("chunk cut off");
        }
        parts.add(part);
        line(); // the CRLF after the chunk
      }
      byte[] body = new byte[(int) total];
      int at = 0;
      for (byte[] p : parts) {
        System.arraycopy(p, 0, body, at, p.length);
        at += p.length;
      }
      return body;
    }

    void close() {
      try {
        socket.close();
      } catch (IOException e) {
        // closing: nothing left to do with it
      }
    }
  }
}
