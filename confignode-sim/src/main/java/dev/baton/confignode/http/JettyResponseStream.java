package dev.baton.confignode.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * A {@link ResponseStream} over a Jetty response: one write in flight at a time, the rest queued
 * and written together next; the request's callback completes when the stream ends, so the request
 * holds no thread while it is open. A piece sent to an idle stream waits {@link #LINGER} for more
 * before it is written: a busy stream (a watcher of a thousand changes a second) makes a write per
 * linger, not one per piece, which is what its server and its client spend their time on.
 */
final class JettyResponseStream implements ResponseStream {
  /** How long a piece waits for others to be written with it; the delay a watcher sees at most. */
  static final Duration LINGER = Duration.ofMillis(10);

  private final Response response;
  private final Callback done;
  private final int maxQueued;
  private final Scheduler scheduler;
  private final ArrayDeque<ByteBuffer> queued = new ArrayDeque<>();
  private final List<Runnable> onEnd = new ArrayList<>();

  /** A write is in flight, or scheduled after the linger. */
  private boolean writing;

  private boolean closing;
  private boolean ended;

  JettyResponseStream(Response response, Callback done, int maxQueued, Scheduler scheduler) {
    this.response = response;
    this.done = done;
    this.maxQueued = maxQueued;
    this.scheduler = scheduler;
  }

  @Override
  public boolean send(String text) {
    synchronized (this) {
      if (ended || closing) {
        return false;
      }
      if (queued.size() < maxQueued) {
        queued.addLast(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
        if (!writing) {
          writing = true;
          scheduler.schedule(this::writeQueued, LINGER.toMillis(), TimeUnit.MILLISECONDS);
        }
        return true;
      }
    }
    // the client does not keep up: end the stream; it may resume where it stopped
    close();
    return false;
  }

  @Override
  public void close() {
    synchronized (this) {
      if (ended || closing) {
        return;
      }
      closing = true;
      if (writing) {
        return; // the write in flight finishes the stream after the queue
      }
    }
    finish();
  }

  @Override
  public void onEnd(Runnable action) {
    synchronized (this) {
      if (!ended) {
        onEnd.add(action);
        return;
      }
    }
    action.run();
  }

  /**
   * After the linger or a finished write: writes every queued piece in one write, or, with nothing
   * queued, ends the write turn (and the stream, if it is closing). The write itself, whose
   * callback may end the stream and run its end actions at once, is made outside the monitor: an
   * end action takes the watcher's registry, whose holder may be sending to this stream.
   */
  private void writeQueued() {
    ByteBuffer next;
    boolean finish = false;
    synchronized (this) {
      if (ended) {
        return;
      }
      next = takeQueued();
      if (next == null) {
        writing = false;
        finish = closing;
      }
    }
    if (next != null) {
      response.write(false, next, Callback.from(this::writeQueued, this::failed));
    } else if (finish) {
      finish();
    }
  }

  /** Every queued piece as one buffer, or null if none; under the monitor. */
  private ByteBuffer takeQueued() {
    ByteBuffer next = queued.pollFirst();
    if (next == null || queued.isEmpty()) {
      return next;
    }
    int size = next.remaining();
    for (ByteBuffer b : queued) {
      size += b.remaining();
    }
    ByteBuffer all = ByteBuffer.allocate(size).put(next);
    for (ByteBuffer b = queued.pollFirst(); b != null; b = queued.pollFirst()) {
      all.put(b);
    }
    return all.flip();
  }

  private void finish() {
    response.write(true, ByteBuffer.allocate(0), Callback.from(() -> ended(null), this::ended));
  }

  private void failed(Throwable cause) {
    ended(cause);
  }

  private void ended(Throwable cause) {
    List<Runnable> actions;
    synchronized (this) {
      if (ended) {
        return;
      }
      ended = true;
      queued.clear();
      actions = List.copyOf(onEnd);
      onEnd.clear();
    }
    if (cause == null) {
      done.succeeded();
    } else {
      done.failed(cause);
    }
    actions.forEach(Runnable::run);
  }
}
