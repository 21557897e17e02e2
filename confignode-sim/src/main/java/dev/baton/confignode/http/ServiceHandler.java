package dev.baton.confignode.http;

import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Runs an {@link HttpService} for each request on a thread of the server's pool (the service may
 * block) and writes its answer.
 */
final class ServiceHandler extends Handler.Abstract {
  private final HttpService service;

  ServiceHandler(HttpService service) {
    super(InvocationType.BLOCKING);
    this.service = service;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    HttpReply reply = service.serve(new JettyCall(request, response));
    response.setStatus(reply.status());
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, reply.contentType());
    response.write(true, ByteBuffer.wrap(reply.body()), callback);
    return true;
  }
}
