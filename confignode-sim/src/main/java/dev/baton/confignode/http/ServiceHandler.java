package dev.baton.confignode.http;

import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an {@link HttpService} for each request on a thread of the server's pool (the service may
 * block) and writes its answer, at once or when the service's stage completes (a long poll holds no
 * thread while it waits).
 */
final class ServiceHandler extends Handler.Abstract {
  private static final Logger LOG = LoggerFactory.getLogger(ServiceHandler.class);

  private final HttpService service;

  ServiceHandler(HttpService service) {
    super(InvocationType.BLOCKING);
    this.service = service;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    service
        .serveAsync(new JettyCall(request, response))
        .whenComplete(
            (reply, failure) -> {
              HttpReply answer = reply;
              if (failure != null) {
                String reference = HttpErrors.newReference();
                LOG.error(
                    "{} {} failed (reference {})",
                    request.getMethod(),
                    request.getHttpURI().getPath(),
                    reference,
                    failure);
                answer = HttpReply.internal(reference);
              }
              response.setStatus(answer.status());
              response.getHeaders().put(HttpHeader.CONTENT_TYPE, answer.contentType());
              response.write(true, ByteBuffer.wrap(answer.body()), callback);
            });
    return true;
  }
}
