package dev.baton.confignode.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * A {@link ResponseStream} over a Jetty response: one write in flight at a time, the rest queued
 * and written together next; the request's callback completes when the stream ends, so the request
 * holds no thread while it is open.
 */
final class JettyResponseStream implements ResponseStream {
  private final Response response;
  private final Callback done;
  private final int maxQueued;
  private final ArrayDeque<ByteBuffer> queued = new ArrayDeque<>();
  private final List<Runnable> onEnd = new ArrayList<>();
  private boolean writing;
  private boolean closing;
  private boolean ended;

  JettyResponseStream(Response response, Callback done, int maxQueued) {
    this.response = response;
    this.done = done;
    this.maxQueued = maxQueued;
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
          writeNext();
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
   * Writes every queued piece in one write (what queued while the last write was in flight goes out
   * together, so a busy stream makes fewer, larger writes); under the monitor.
   */
  private void writeNext() {
    ByteBuffer next = queued.pollFirst();
    if (!queued.isEmpty()) {
      int size = next.remaining();
      for (ByteBuffer b : queued) {
        size += b.remaining();
      }
      ByteBuffer all = ByteBuffer.allocate(size).put(next);
      for (ByteBuffer b = queued.pollFirst(); b != null; b = queued.pollFirst()) {
        all.put(b);
      }
      next = all.flip();
    }
    writing = true;
    response.write(false, next, Callback.from(this::written, this::failed));
  }

  private void written() {
    boolean finish;
    synchronized (this) {
      writing = false;
      if (ended) {
        return;
      }
      if (!queued.isEmpty()) {
        writeNext();
        return;
      }
      finish = closing;
    }
    if (finish) {
      finish();
    }
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
