package dev.baton.confignode.datanode;

import java.io.IOException;
import java.net.HttpURLConnection;

/**
 * A DataNode refused a command, answered with an error, or could not be reached. {@link #error()}
 * is one of the {@link DataNodeErrors} codes; {@link #status()} the HTTP status, or {@link
 * #NO_STATUS} when no answer came.
 */
public final class DataNodeException extends IOException {
  /** {@link #status()} when there was no answer (unreachable, timed out). */
  public static final int NO_STATUS = -1;

  private final String address;
  private final String path;
  private final int status;
  private final String error;

  DataNodeException(
      String address, String path, int status, String error, String message, Throwable cause) {
    super(
        "DataNode "
            + address
            + " "
            + path
            + ": "
            + (status == NO_STATUS ? "" : status + " ")
            + error
            + ": "
            + message,
        cause);
    this.address = address;
    this.path = path;
    this.status = status;
    this.error = error;
  }

  /** host:port of the DataNode. */
  public String address() {
    return address;
  }

  /** The path of the request, e.g. {@code /regions/create}. */
  public String path() {
    return path;
  }

  /** The HTTP status, or {@link #NO_STATUS}. */
  public int status() {
    return status;
  }

  /** The error code, one of {@link DataNodeErrors}. */
  public String error() {
    return error;
  }

  /**
   * The DataNode has seen a higher term than the command's: the sender is no longer the leader and
   * must stop, not retry.
   */
  public boolean staleTerm() {
    return DataNodeErrors.STALE_TERM.equals(error);
  }

  /** No answer came: the DataNode is down, unreachable, or too slow. */
  public boolean noAnswer() {
    return status == NO_STATUS;
  }

  /**
   * Whether sending the same command again may succeed: no answer, or a 503 (injected failure,
   * shutting down). A command may have been applied without its answer arriving; its ledger makes
   * the retry safe.
   */
  public boolean retryable() {
    return status == NO_STATUS || status == HttpURLConnection.HTTP_UNAVAILABLE;
  }
}
