package dev.baton.confignode.http;

/** An error answer decided while handling a request: its status and JSON body. */
public final class HttpError extends Exception {
  private final int status;
  private final ErrorReply reply;

  public HttpError(int status, String error, String message) {
    super(message, null, false, false);
    this.status = status;
    this.reply = new ErrorReply(error, message);
  }

  public int status() {
    return status;
  }

  public ErrorReply reply() {
    return reply;
  }
}
