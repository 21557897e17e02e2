package dev.baton.confignode.client;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One open server-sent events stream, read into frames by a daemon thread of its own, so that the
 * caller can wait for the next frame with a bound. Comment lines (a heartbeat) arrive as frames
 * with no event name; the end of the stream, or a failure to read it, as {@link Frame#END}.
 */
final class SseConnection implements AutoCloseable {
  /**
   * One frame.
   *
   * @param id its {@code id:} field, or null
   * @param event its {@code event:} name, or null for a comment and for the end
   * @param data its {@code data:} line, or null
   */
  record Frame(String id, String event, String data) {
    /** The stream ended (closed by the node, broken, or closed here). */
    static final Frame END = new Frame(null, null, null);

    boolean isEnd() {
      return this == END;
    }
  }

  private static final String ID = "id:";
  private static final String EVENT = "event:";
  private static final String DATA = "data:";
  private static final String COMMENT = ":";

  private final InputStream body;
  private final BlockingQueue<Frame> frames = new LinkedBlockingQueue<>();

  SseConnection(InputStream body, String name) {
    this.body = body;
    Thread reader = new Thread(this::read, name);
    reader.setDaemon(true);
    reader.start();
  }

  /** The next frame, or empty if none came within {@code wait}. */
  Optional<Frame> next(Duration wait) throws InterruptedException {
    return Optional.ofNullable(frames.poll(wait.toNanos(), TimeUnit.NANOSECONDS));
  }

  private void read() {
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
      String id = null;
      String event = null;
      String data = null;
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isEmpty()) {
          if (event != null || data != null) {
            frames.add(new Frame(id, event, data));
          }
          id = null;
          event = null;
          data = null;
        } else if (line.startsWith(ID)) {
          id = value(line, ID);
        } else if (line.startsWith(EVENT)) {
          event = value(line, EVENT);
        } else if (line.startsWith(DATA)) {
          data = value(line, DATA);
        } else if (line.startsWith(COMMENT)) {
          frames.add(new Frame(null, null, null));
        }
      }
    } catch (IOException e) {
      // a broken or closed stream ends like a finished one: the watcher resumes elsewhere
    } finally {
      frames.add(Frame.END);
    }
  }

  /** A field's value: the text after its name, without the one optional space. */
  private static String value(String line, String field) {
    String v = line.substring(field.length());
    return v.startsWith(" ") ? v.substring(1) : v;
  }

  @Override
  public void close() {
    try {
      body.close();
    } catch (IOException e) {
      // closing a stream being dropped: nothing left to do
    }
  }
}
