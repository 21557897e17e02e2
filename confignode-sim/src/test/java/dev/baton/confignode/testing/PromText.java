package dev.baton.confignode.testing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A scrape in the Prometheus text format, read back for assertions: each metric family's HELP, TYPE
 * and samples (name, labels, value). Refuses lines it cannot read, so a malformed scrape fails the
 * test that reads it.
 */
public final class PromText {
  /** One sample line. */
  public record Sample(String name, Map<String, String> labels, double value) {}

  /** One family: its HELP and TYPE lines and the samples after them. */
  public record Family(String name, String help, String type, List<Sample> samples) {}

  private static final Pattern SAMPLE =
      Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)\\})? (\\S+)");
  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"([^\"]*)\",?");

  private final Map<String, Family> families = new LinkedHashMap<>();

  private PromText() {}

  public static PromText parse(String text) {
    PromText out = new PromText();
    String help = null;
    String name = null;
    for (String line : text.split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      if (line.startsWith("# HELP ")) {
        String[] parts = line.split(" ", 4);
        name = parts[2];
        help = parts.length > 3 ? parts[3] : "";
      } else if (line.startsWith("# TYPE ")) {
        String[] parts = line.split(" ");
        if (!parts[2].equals(name)) {
          throw new AssertionError("TYPE without its HELP before it: " + line);
        }
        out.families.put(name, new Family(name, help, parts[3], new ArrayList<>()));
      } else {
        Matcher m = SAMPLE.matcher(line);
        if (!m.matches() || name == null) {
          throw new AssertionError("not a sample line: '" + line + "'");
        }
        Map<String, String> labels = new LinkedHashMap<>();
        if (m.group(3) != null) {
          Matcher l = LABEL.matcher(m.group(3));
          while (l.find()) {
            labels.put(l.group(1), l.group(2));
          }
        }
        out.families
            .get(name)
            .samples()
            .add(new Sample(m.group(1), labels, Double.parseDouble(m.group(4))));
      }
    }
    return out;
  }

  public Map<String, Family> families() {
    return families;
  }

  /** The value of the sample {@code name} whose labels include {@code labels} (name, value...). */
  public Optional<Double> value(String name, String... labels) {
    for (Family f : families.values()) {
      for (Sample s : f.samples()) {
        if (s.name().equals(name) && hasLabels(s, labels)) {
          return Optional.of(s.value());
        }
      }
    }
    return Optional.empty();
  }

  /** As {@link #value}, failing if there is no such sample. */
  public double get(String name, String... labels) {
    return value(name, labels)
        .orElseThrow(
            () -> new AssertionError("no sample " + name + " " + List.of(labels) + " in " + this));
  }

  private static boolean hasLabels(Sample s, String... labels) {
    for (int i = 0; i + 1 < labels.length; i += 2) {
      if (!labels[i + 1].equals(s.labels().get(labels[i]))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String toString() {
    return families.keySet().toString();
  }
}
