package dev.baton.confignode.http;

import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * The errors the server decides before a handler runs (a malformed request, headers too large, a
 * saturated server) as JSON {@code {error, message}}, like every other error of the simulation's
 * APIs; never HTML, never a stack trace.
 */
final class JsonErrorHandler extends ErrorHandler {
  /** 503 from the server itself: every handler slot busy and the waiting line full or too slow. */
  static final String OVERLOADED = "overloaded";

  /** Any other error the server decides (400, 408, 414, 431, ...). */
  static final String BAD_REQUEST = "bad_request";

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    Object attribute = request.getAttribute(ERROR_STATUS);
    int status = attribute instanceof Integer s ? s : response.getStatus();
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, JsonExchange.CONTENT_TYPE);
    response.write(true, ByteBuffer.wrap(body(status)), callback);
    return true;
  }

  /** The JSON body of an error with this status. */
  static byte[] body(int status) {
    return HttpReply.json(status, reply(status)).body();
  }

  private static ErrorReply reply(int status) {
    return switch (status) {
      case HttpStatus.SERVICE_UNAVAILABLE_503 ->
          new ErrorReply(
              OVERLOADED,
              "the server is handling as many requests as it allows and its waiting line is"
                  + " full; retry shortly");
      case HttpStatus.PAYLOAD_TOO_LARGE_413 ->
          new ErrorReply(HttpErrors.PAYLOAD_TOO_LARGE, "the request is too large");
      case HttpStatus.REQUEST_HEADER_FIELDS_TOO_LARGE_431 ->
          new ErrorReply(BAD_REQUEST, "the request line and headers exceed the server's limit");
      case HttpStatus.REQUEST_TIMEOUT_408 ->
          new ErrorReply(BAD_REQUEST, "the request did not arrive in time");
      case HttpStatus.NOT_FOUND_404 -> new ErrorReply(HttpErrors.NOT_FOUND, "no such path");
      case HttpStatus.INTERNAL_SERVER_ERROR_500 ->
          new ErrorReply(HttpErrors.INTERNAL, "internal error; the server's log has the details");
      default ->
          new ErrorReply(
              BAD_REQUEST,
              "HTTP "
                  + status
                  + " "
                  + HttpStatus.getMessage(status)
                  + ": the request is malformed");
    };
  }
}
