package dev.baton.confignode.http;

import java.io.IOException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * One HTTP request as the simulation's handlers see it, whatever server carries it: its method,
 * path, query and headers, who sent it, its body (read with a size cap), and the response headers
 * the handler adds. The status and body of the answer are the handler's return value ({@link
 * HttpReply}).
 */
public interface HttpCall {
  /** The method, upper case ({@code GET}, {@code POST}, ...). */
  String method();

  /** The decoded path, e.g. {@code /api/procedures/7}. */
  String path();

  /** The raw query after {@code ?}, or null if none. */
  String rawQuery();

  /** The first value of header {@code name} (any case), if present. */
  Optional<String> header(String name);

  /** The client's address as the server saw it, e.g. {@code 127.0.0.1:51234}. */
  String remoteAddress();

  /**
   * The request body, at most {@code maxBytes} long; a longer one is read no further than needed to
   * answer and fails with 413 ({@link HttpErrors#PAYLOAD_TOO_LARGE}).
   */
  byte[] body(int maxBytes) throws IOException, HttpError;

  /**
   * The certificate chain the client presented over TLS, its own certificate first, already checked
   * against the CA the server trusts; empty over plain HTTP or when none was asked for.
   */
  List<X509Certificate> peerCertificates();

  /**
   * The server's thread pool: an answer that becomes ready on some other thread (a Raft reply
   * thread, the thread that wakes long polls) is built and written here, so that thread only hands
   * it over.
   */
  Executor executor();

  /** Sets a header of the answer (replacing one of the same name). */
  void setResponseHeader(String name, String value);

  /**
   * Answers 200 with {@code contentType} at once and keeps the answer open for pieces written later
   * ({@link ResponseStream}); the service's own reply to this call is then ignored. At most {@code
   * maxQueued} pieces wait for a slow client before the stream ends.
   */
  ResponseStream openStream(String contentType, int maxQueued);
}
