package dev.baton.confignode.http;

/**
 * An answer written piece by piece as things happen (server-sent events), opened by {@link
 * HttpCall#openStream}: each piece is queued and written without blocking the caller; a client that
 * reads too slowly for {@code maxQueued} pieces, or went away, ends the stream. The service's own
 * answer to the call is then ignored.
 */
public interface ResponseStream {
  /** Queues {@code text}; false once the stream ended (closed, failed or too far behind). */
  boolean send(String text);

  /** Ends the answer after the pieces queued so far. */
  void close();

  /** Runs {@code action} once the stream ended, whoever ended it (at once if it already has). */
  void onEnd(Runnable action);
}
