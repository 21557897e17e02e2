package dev.baton.confignode.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.waits.ConfigNodeWaits;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Follows one procedure until it finished through the nodes' {@code GET /api/events?procId=ID}
 * instead of polling: reports its state as first read, then each change of its state or step. When
 * a stream breaks (the node stopped, or sent nothing, not even a heartbeat, for {@link
 * ConfigNodeWaits#EVENT_STREAM_SILENCE}), it resumes on the next listed node with {@code
 * Last-Event-ID}, so no change is lost or repeated; an {@code event: reset} (the node no longer
 * keeps the changes after that id) reads the procedure again.
 *
 * <p>A change is a JSON object with the procedure's {@code procId}, {@code type}, {@code state},
 * {@code step}, {@code finished}, {@code failure} and {@code lastUpdate}, and the {@code node}
 * (admin API address) that reported it.
 */
public final class ProcedureWatch {
  /** The fields of a change, as both a procedure's view and its events name them. */
  static final List<String> FIELDS =
      List.of("procId", "type", "state", "step", "finished", "failure", "lastUpdate");

  /** The fields whose change is reported; a change of only the others is not. */
  private static final List<String> REPORTED = List.of("state", "step", "finished", "failure");

  private static final String LAST_UPDATE = "lastUpdate";
  private static final String FINISHED = "finished";

  /**
   * How the watch ended.
   *
   * @param last the last change reported (null if the procedure was never read)
   * @param finished whether the procedure finished (or its record was removed) within the timeout
   */
  public record Outcome(JsonNode last, boolean finished) {}

  private final NodeApiClient api;
  private final long procId;
  private final Consumer<JsonNode> onChange;

  private Optional<String> lastEventId = Optional.empty();
  private JsonNode last;
  private int nodeIndex;

  /**
   * @param api the nodes to watch on, tried in turn, with this client's credentials and patience
   * @param procId the procedure
   * @param onChange called with each change, in order, on the caller's thread
   */
  public ProcedureWatch(NodeApiClient api, long procId, Consumer<JsonNode> onChange) {
    this.api = api;
    this.procId = procId;
    this.onChange = onChange;
  }

  /**
   * Watches until the procedure finished or {@code timeout} passed.
   *
   * @throws NodeApiClient.ApiException a node's refusal (404 for an unknown id), or, retryable, if
   *     no node could serve a stream for the client's patience
   */
  public Outcome follow(Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<String> nodes = api.nodes();
    long failingSince = 0;
    while (System.nanoTime() < deadline) {
      String node = nodes.get(nodeIndex % nodes.size());
      try (SseConnection stream =
          new SseConnection(
              api.openEventStream(node, "/api/events?procId=" + procId, lastEventId),
              "watch-" + procId + "-" + node)) {
        failingSince = 0;
        if (read(stream, node, deadline)) {
          return new Outcome(last, true);
        }
      } catch (NodeApiClient.ApiException e) {
        if (!e.retryable()) {
          throw e;
        }
        long now = System.nanoTime();
        if (failingSince == 0) {
          failingSince = now;
        } else if (now - failingSince > api.patience().toNanos()) {
          throw e;
        }
        if (nodeIndex % nodes.size() == nodes.size() - 1) {
          Thread.sleep(ConfigNodeWaits.API_READ_RETRY.toMillis()); // every node tried: pause
        }
      }
      nodeIndex++;
    }
    return new Outcome(last, false);
  }

  /**
   * Reads frames until the procedure finished (true), the stream ended or fell silent, or the
   * deadline passed (false).
   */
  private boolean read(SseConnection stream, String node, long deadline)
      throws IOException, InterruptedException {
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      Duration wait =
          left < ConfigNodeWaits.EVENT_STREAM_SILENCE.toNanos()
              ? Duration.ofNanos(left)
              : ConfigNodeWaits.EVENT_STREAM_SILENCE;
      Optional<SseConnection.Frame> next = stream.next(wait);
      if (next.isEmpty() || next.get().isEnd()) {
        return false;
      }
      SseConnection.Frame frame = next.get();
      if (frame.event() == null) {
        continue; // a heartbeat
      }
      switch (frame.event()) {
        case "ready" -> {
          if (lastEventId.isEmpty()) {
            // the stream starts after what the node applied so far: read where the procedure is
            JsonNode view = api.call(node, "GET", "/api/procedures/" + procId, null);
            lastEventId = Optional.ofNullable(frame.id());
            if (report(view, node)) {
              return true;
            }
          }
        }
        case "procedure" -> {
          lastEventId = Optional.ofNullable(frame.id());
          JsonNode event = Json.LENIENT.readTree(frame.data());
          if (report(event, node) || event.path("deleted").asBoolean()) {
            return true;
          }
        }
        case "reset" -> {
          lastEventId = Optional.ofNullable(frame.id());
          if (report(api.call(node, "GET", "/api/procedures/" + procId, null), node)) {
            return true;
          }
        }
        default -> {
          // an event this watcher does not know: not about the procedure's state
        }
      }
    }
  }

  /**
   * Reports {@code source} (a view or an event) if it changed a reported field and is not older
   * than the last change reported; true if the procedure finished.
   */
  private boolean report(JsonNode source, String node) {
    ObjectNode change = Json.LENIENT.createObjectNode();
    for (String f : FIELDS) {
      change.set(f, source.path(f).isMissingNode() ? null : source.get(f));
    }
    change.put("node", node);
    boolean stale =
        last != null && change.path(LAST_UPDATE).asLong() < last.path(LAST_UPDATE).asLong();
    if (!stale && (last == null || changed(last, change))) {
      last = change;
      onChange.accept(change);
    }
    return last.path(FINISHED).asBoolean();
  }

  private static boolean changed(JsonNode before, JsonNode after) {
    for (String f : REPORTED) {
      if (!before.path(f).equals(after.path(f))) {
        return true;
      }
    }
    return false;
  }
}
