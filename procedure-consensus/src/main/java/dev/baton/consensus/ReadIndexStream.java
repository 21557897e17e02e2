package dev.baton.consensus;

import dev.baton.consensus.proto.ReadIndexReply;
import dev.baton.consensus.proto.ReadIndexRequest;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.thirdparty.io.grpc.CallOptions;
import org.apache.ratis.thirdparty.io.grpc.Channel;
import org.apache.ratis.thirdparty.io.grpc.ClientCall;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.Status;

/**
 * A member's stream of read index requests to one other member ({@link ReadIndexService}): each
 * request numbered, each answer matched to its request by that number, in whatever order the
 * answers come. Answers complete on the channel's thread that read them.
 *
 * <p>Once the stream ends (the other member went away, refused the caller, or this side closed it)
 * it is {@link #broken}: every request waiting on it fails, as does every later one; the caller
 * opens a new stream. A request not answered within its timeout fails alone, and the stream stays.
 */
final class ReadIndexStream implements AutoCloseable {
  private final ClientCall<ReadIndexRequest, ReadIndexReply> call;
  private final Map<Long, CompletableFuture<Long>> waiting = new ConcurrentHashMap<>();
  private final AtomicLong ids = new AtomicLong();
  private volatile IOException broken;

  /** Opens a stream on {@code channel}. */
  ReadIndexStream(Channel channel) {
    call = channel.newCall(ReadIndexService.READ_INDEX, CallOptions.DEFAULT);
    synchronized (call) {
      call.start(new Answers(), new Metadata());
      call.request(1);
    }
  }

  /**
   * The read index for {@code request} (its id is set here), failed when the other member gives
   * none, the stream is broken, or no answer came within {@code timeout}.
   */
  CompletableFuture<Long> ask(ReadIndexRequest.Builder request, Duration timeout) {
    long id = ids.incrementAndGet();
    CompletableFuture<Long> answer = new CompletableFuture<>();
    waiting.put(id, answer);
    answer
        .orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS)
        .whenComplete((index, error) -> waiting.remove(id));
    IOException failure = broken;
    if (failure == null) {
      try {
        synchronized (call) {
          call.sendMessage(request.setId(id).build());
        }
      } catch (RuntimeException e) {
        failure = new IOException("the read index stream cannot send", e);
      }
    }
    if (failure != null) {
      // the stream ended before this request was sent, or while it was: the end's sweep of the
      // waiting requests may have run before it was added
      answer.completeExceptionally(failure);
    }
    return answer;
  }

  /** Whether the stream ended: every request on it fails; open a new one. */
  boolean broken() {
    return broken != null;
  }

  /** Requests waiting for an answer (each removed when answered, failed or timed out). */
  int waiting() {
    return waiting.size();
  }

  /** Ends the stream: waiting requests fail. */
  @Override
  public void close() {
    synchronized (call) {
      call.cancel("the read index stream is closed", null);
    }
  }

  private final class Answers extends ClientCall.Listener<ReadIndexReply> {
    @Override
    public void onMessage(ReadIndexReply reply) {
      CompletableFuture<Long> answer = waiting.remove(reply.getId());
      if (answer != null) {
        if (reply.getError().isEmpty()) {
          answer.complete(reply.getIndex());
        } else {
          answer.completeExceptionally(new IOException(reply.getError()));
        }
      }
      synchronized (call) {
        call.request(1);
      }
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      // set before the sweep: a request added after the sweep sees it
      IOException end =
          new IOException(
              "the read index stream ended: "
                  + status.getCode()
                  + (status.getDescription() == null ? "" : " " + status.getDescription()),
              status.asException());
      broken = end;
      for (Long id : waiting.keySet()) {
        CompletableFuture<Long> answer = waiting.remove(id);
        if (answer != null) {
          answer.completeExceptionally(end);
        }
      }
    }
  }
}
