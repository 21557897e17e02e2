package dev.baton.confignode.datanode;

/** An error answer decided while handling a request: its status and JSON body. */
final class HttpError extends Exception {
  private final int status;
  private final ErrorReply reply;

  HttpError(int status, String error, String message) {
    super(message, null, false, false);
    this.status = status;
    this.reply = new ErrorReply(error, message);
  }

  int status() {
    return status;
  }

  ErrorReply reply() {
    return reply;
  }
}
