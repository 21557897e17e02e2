package dev.baton.confignode.history;

import java.util.Locale;
import java.util.Objects;
import java.util.TreeSet;

/**
 * One client operation of a history.
 *
 * @param id its number in the history (unique)
 * @param client who made it (one client's operations do not overlap)
 * @param node the ConfigNode it went to ({@code any} when the client tried nodes in turn)
 * @param startNanos when the client sent it, nanoseconds of the recording process's monotonic clock
 * @param endNanos when the client had the answer or gave up, same clock, not before {@code
 *     startNanos}
 * @param request what was asked
 * @param reply what came back
 */
public record Operation(
    int id,
    String client,
    String node,
    long startNanos,
    long endNanos,
    Request request,
    Reply reply) {
  /** The id of the synthetic operation that stands for the state read at the end. */
  public static final int END_ID = -1;

  private static final double NANOS_PER_MILLI = 1e6;

  public Operation {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(reply, "reply");
    if (endNanos < startNanos) {
      throw new IllegalArgumentException(
          "operation " + id + " ends (" + endNanos + ") before it starts (" + startNanos + ")");
    }
  }

  /** The procedures at the end, as a read of the list that starts after every operation. */
  static Operation endProcedures(FinalState end) {
    return atEnd(Request.readList(), Reply.procedures(end.procedures()));
  }

  /** The databases at the end, as a read of the metadata that starts after every operation. */
  static Operation endDatabases(FinalState end) {
    return atEnd(Request.readMetadata(), Reply.databases(end.databases()));
  }

  private static Operation atEnd(Request request, Reply reply) {
    return new Operation(
        END_ID, "the check", "any", Long.MAX_VALUE, Long.MAX_VALUE, request, reply);
  }

  public OperationKind kind() {
    return request.kind();
  }

  public boolean ok() {
    return reply.ok();
  }

  /** Whether this one ended before {@code other} started (real-time order; no overlap). */
  public boolean precedes(Operation other) {
    return endNanos < other.startNanos;
  }

  /** In words, with its interval in milliseconds, for a violation's text. */
  @Override
  public String toString() {
    if (id == END_ID) {
      return kind() == OperationKind.READ_METADATA
          ? "the databases at the end " + new TreeSet<>(reply.databases())
          : "the procedures at the end";
    }
    return String.format(
        Locale.ROOT,
        "#%d %s by %s on %s [%.3f..%.3f ms]: %s",
        id,
        request,
        client,
        node,
        startNanos / NANOS_PER_MILLI,
        endNanos / NANOS_PER_MILLI,
        reply.describe(request.kind()));
  }
}
