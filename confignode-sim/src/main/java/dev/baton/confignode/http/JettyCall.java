package dev.baton.confignode.http;

import java.io.IOException;
import java.io.InputStream;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** An {@link HttpCall} over a Jetty request and its response. */
final class JettyCall implements HttpCall {
  /**
   * How much of an oversized body is read and discarded so the client gets the 413 instead of a
   * reset connection; beyond it the connection is simply closed.
   */
  static final long DRAIN_LIMIT_BYTES = 16L << 20;

  private static final int DRAIN_CHUNK_BYTES = 8192;

  private final Request request;
  private final Response response;
  private final Callback done;
  private volatile ResponseStream stream;

  JettyCall(Request request, Response response, Callback done) {
    this.request = request;
    this.response = response;
    this.done = done;
  }

  /** Whether the service opened a stream: it, not the service's reply, answers the request. */
  boolean streaming() {
    return stream != null;
  }

  @Override
  public ResponseStream openStream(String contentType, int maxQueued) {
    if (stream != null) {
      throw new IllegalStateException("the answer is already a stream");
    }
    response.setStatus(HttpStatus.OK_200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    JettyResponseStream opened =
        new JettyResponseStream(response, done, maxQueued, request.getComponents().getScheduler());
    stream = opened;
    return opened;
  }

  @Override
  public Executor executor() {
    return request.getComponents().getExecutor();
  }

  @Override
  public String method() {
    return request.getMethod();
  }

  @Override
  public String path() {
    String path = request.getHttpURI().getDecodedPath();
    return path == null ? "/" : path;
  }

  @Override
  public String rawQuery() {
    return request.getHttpURI().getQuery();
  }

  @Override
  public Optional<String> header(String name) {
    return Optional.ofNullable(request.getHeaders().get(name));
  }

  @Override
  public String remoteAddress() {
    return Request.getRemoteAddr(request) + ":" + Request.getRemotePort(request);
  }

  @Override
  public byte[] body(int maxBytes) throws IOException, HttpError {
    InputStream in = Request.asInputStream(request);
    long declared = request.getLength();
    if (declared > maxBytes) {
      drain(in);
      throw tooLarge(maxBytes);
    }
    if (declared >= 0) {
      return declaredBody(in, (int) declared);
    }
    byte[] body = in.readNBytes(maxBytes + 1);
    if (body.length > maxBytes) {
      drain(in);
      throw tooLarge(maxBytes);
    }
    return body;
  }

  /**
   * A body of the length its request declared, read into one array of that size: reading up to the
   * limit instead goes through a buffer of the stream's own for every request, the largest
   * allocation of a submission on the node.
   */
  private static byte[] declaredBody(InputStream in, int length) throws IOException {
    byte[] body = new byte[length];
    int read = in.readNBytes(body, 0, length);
    if (read < length) {
      throw new IOException(
          "request body ended after " + read + " of its declared " + length + " bytes");
    }
    return body;
  }

  private static HttpError tooLarge(int maxBytes) {
    return new HttpError(
        JsonExchange.HTTP_PAYLOAD_TOO_LARGE,
        HttpErrors.PAYLOAD_TOO_LARGE,
        "request body exceeds the limit of " + maxBytes + " bytes");
  }

  @Override
  public List<X509Certificate> peerCertificates() {
    if (request.getAttribute(EndPoint.SslSessionData.ATTRIBUTE)
        instanceof EndPoint.SslSessionData tls) {
      X509Certificate[] chain = tls.peerCertificates();
      return chain == null ? List.of() : List.of(chain);
    }
    return List.of();
  }

  @Override
  public void setResponseHeader(String name, String value) {
    response.getHeaders().put(name, value);
  }

  private static void drain(InputStream in) throws IOException {
    byte[] chunk = new byte[DRAIN_CHUNK_BYTES];
    long drained = 0;
    int n;
    while (drained < DRAIN_LIMIT_BYTES && (n = in.read(chunk)) > 0) {
      drained += n;
    }
  }
}
