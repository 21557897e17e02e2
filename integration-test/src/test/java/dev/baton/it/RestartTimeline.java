package dev.baton.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * When a started ConfigNode process reached each step of its start, read from its log (one process,
 * one log file): where a restart's time goes.
 */
final class RestartTimeline {
  /** A step of a node's start, known by the first log line that contains its marker. */
  enum Step {
    /** The Raft server started (its log and snapshot loaded). */
    RAFT_STARTED("raft", "INFO dev.baton.consensus.RaftPeer - Procedure node "),
    /** The node asked its peers for (pre-)votes for the first time. */
    FIRST_VOTE_REQUEST("vote", ": submit vote requests at term "),
    /** The node learned of a leader (itself, or another through a vote reply or an append). */
    LEADER_KNOWN("leader", "INFO dev.baton.consensus.LeaderChanges - node "),
    /** The admin API answers. */
    API_SERVING("api", "serves its admin API on "),
    /** As leader, the node applied every entry before its term (Ratis' leader ready). */
    LEADER_READY("ready", "is the ready leader of term "),
    /** As leader, the node rebuilt its executor and runs it. */
    EXECUTOR_RUNNING("running", "runs the executor of term ");

    final String label;
    final String marker;

    Step(String label, String marker) {
      this.label = label;
      this.marker = marker;
    }
  }

  /** How a ConfigNode's log line begins: its local time. */
  static final DateTimeFormatter LOG_TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

  private final Map<Step, Long> at;

  private RestartTimeline(Map<Step, Long> at) {
    this.at = at;
  }

  /** The steps {@code log} shows, each at its first line's time (epoch ms). */
  static RestartTimeline read(Path log) throws IOException {
    Map<Step, Long> at = new EnumMap<>(Step.class);
    try (Stream<String> lines = Files.lines(log)) {
      lines.forEach(
          line -> {
            for (Step s : Step.values()) {
              if (!at.containsKey(s) && line.contains(s.marker)) {
                lineMillis(line).ifPresent(t -> at.put(s, t));
              }
            }
          });
    }
    return new RestartTimeline(at);
  }

  /** When {@code step} was reached (epoch ms), if the log shows it. */
  Optional<Long> at(Step step) {
    return Optional.ofNullable(at.get(step));
  }

  /**
   * The steps reached, in milliseconds after {@code originMillis}, in the order of {@link Step}:
   * {@code raft +812 vote +830 leader +2010 api +1500}.
   */
  String describe(long originMillis) {
    StringBuilder b = new StringBuilder();
    for (Step s : List.of(Step.values())) {
      Long t = at.get(s);
      if (t != null) {
        b.append(b.length() == 0 ? "" : " ").append(s.label).append(" +").append(t - originMillis);
      }
    }
    return b.toString();
  }

  /**
   * The time a log line begins with, today (or yesterday, for a line logged just before midnight
   * and read just after it), in epoch ms; empty for a line without one (a stack trace's).
   */
  static Optional<Long> lineMillis(String line) {
    int space = line.indexOf(' ');
    if (space < 0) {
      return Optional.empty();
    }
    LocalTime time;
    try {
      time = LocalTime.parse(line.substring(0, space), LOG_TIME);
    } catch (DateTimeParseException notATime) {
      return Optional.empty();
    }
    ZonedDateTime today = ZonedDateTime.now(ZoneId.systemDefault());
    ZonedDateTime t = today.with(time);
    return Optional.of((t.isAfter(today) ? t.minusDays(1) : t).toInstant().toEpochMilli());
  }
}
