package dev.baton.confignode.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.baton.confignode.events.EventFilter;
import dev.baton.confignode.events.EventId;
import dev.baton.confignode.events.EventLog;
import dev.baton.confignode.events.ProcedureEvent;
import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.http.HttpErrors;
import dev.baton.confignode.http.HttpReply;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.http.ResponseStream;
import java.net.HttpURLConnection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code GET /api/events?procId=&type=}: a server-sent events stream ({@code text/event-stream}) of
 * procedure changes as this node applies them ({@link EventLog}; any node serves it, leader or
 * not). Each change is an {@code event: procedure} whose {@code id} is its log position; a client
 * that reconnects, to this node or another, with {@code Last-Event-ID} gets exactly the changes
 * after it, or an {@code event: reset} when they are no longer kept (reload, then go on). The
 * stream begins with {@code event: ready} (with an id only when not resuming) and carries a comment
 * line as a heartbeat while nothing changes. Watchers beyond the node's limit get 503; a watcher
 * holds a connection and a queue, no thread.
 */
final class EventRoutes implements AdminRoutes {
  static final String PATH = "/api/events";

  /** The media type of the stream. */
  static final String EVENT_STREAM = "text/event-stream";

  /** The header a reconnecting client names its last event in. */
  static final String LAST_EVENT_ID = "Last-Event-ID";

  /** Frames queued for a slow client before its stream ends (it resumes from the last it got). */
  static final int MAX_QUEUED_FRAMES = 4096;

  /** How long a browser's EventSource waits before reconnecting. */
  static final int RETRY_MILLIS = 2000;

  private final EventLog events;
  private final String nodeId;

  EventRoutes(EventLog events, String nodeId) {
    this.events = events;
    this.nodeId = nodeId;
  }

  @Override
  public List<Endpoint> endpoints() {
    return List.of(
        Endpoint.get(
                PATH,
                "a server-sent events stream of procedure changes, resumable with Last-Event-ID on"
                    + " any node",
                this::watch)
            .withQuery(
                "procId: only this procedure's changes",
                "type: only changes of procedures of this type")
            .producing(EVENT_STREAM));
  }

  private Object watch(AdminRequest req) throws HttpError {
    Map<String, String> query = req.query();
    long procId = query.containsKey("procId") ? ProcedureRoutes.procId(query.get("procId")) : 0;
    String type = query.get("type");
    EventFilter filter = new EventFilter(procId, type == null || type.isEmpty() ? null : type);
    Optional<String> lastHeader = req.header(LAST_EVENT_ID);
    Optional<EventId> last = Optional.empty();
    if (lastHeader.isPresent()) {
      last = EventId.parse(lastHeader.get());
      if (last.isEmpty()) {
        throw new HttpError(
            HttpURLConnection.HTTP_BAD_REQUEST,
            HttpErrors.INVALID_REQUEST,
            LAST_EVENT_ID
                + " must be an event id such as 1234.0 or 1234, got '"
                + lastHeader.get()
                + "'");
      }
    }
    ResponseStream[] opened = new ResponseStream[1];
    try {
      EventLog.Watch watch =
          events.watch(
              filter,
              last,
              () -> {
                opened[0] = req.openStream(EVENT_STREAM, MAX_QUEUED_FRAMES);
                return new Frames(opened[0]);
              });
      opened[0].onEnd(watch::close);
    } catch (EventLog.TooManyWatchers e) {
      throw ClusterCalls.unavailable(e.getMessage());
    }
    return HttpReply.text(HttpURLConnection.HTTP_OK, EVENT_STREAM, "");
  }

  /** The SSE frames of one watcher. */
  private final class Frames implements EventLog.Sink {
    private final ResponseStream stream;

    Frames(ResponseStream stream) {
      this.stream = stream;
    }

    @Override
    public boolean start(EventId position, boolean resuming) {
      Map<String, Object> data = new LinkedHashMap<>();
      data.put("nodeId", nodeId);
      data.put("position", position);
      return stream.send(
          "retry: "
              + RETRY_MILLIS
              + "\n"
              + frame(resuming ? null : position.toString(), "ready", data));
    }

    @Override
    public boolean event(ProcedureEvent event) {
      return stream.send(procedureFrame(event));
    }

    @Override
    public boolean reset(EventId now, String why) {
      Map<String, Object> data = new LinkedHashMap<>();
      data.put("nodeId", nodeId);
      data.put("position", now);
      data.put("reason", why);
      return stream.send(frame(now.toString(), "reset", data));
    }

    @Override
    public boolean heartbeat() {
      return stream.send(": heartbeat\n\n");
    }
  }

  /** An event and its frame. */
  private record Framed(ProcedureEvent event, String frame) {}

  /**
   * The frame of the event last framed: the log hands each event to every watcher in turn, so it is
   * made into JSON once, not once per watcher.
   */
  private final AtomicReference<Framed> lastFramed = new AtomicReference<>();

  private String procedureFrame(ProcedureEvent event) {
    Framed last = lastFramed.get();
    if (last != null && last.event() == event) {
      return last.frame();
    }
    String frame = frame(event.id().toString(), "procedure", event);
    lastFramed.set(new Framed(event, frame));
    return frame;
  }

  /** One SSE frame: its id (if any), event name and JSON data on one line. */
  static String frame(String id, String event, Object data) {
    String json;
    try {
      json = Json.STRICT.writeValueAsString(data);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("event is not serializable as JSON: " + e, e);
    }
    return (id == null ? "" : "id: " + id + "\n") + "event: " + event + "\ndata: " + json + "\n\n";
  }
}
