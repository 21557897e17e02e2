package dev.baton.procedure.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The benchmark's figures: printed as a table (with each target and a pass/miss mark) and as one
 * JSON line with the same figures, for scripts.
 */
final class CoreBenchReport {
  private static final String PASS = "pass";
  private static final String MISS = "MISS";
  private static final String ROW_FORMAT = "%-22s %-36s %14s %12s  %s%n";

  /**
   * One figure.
   *
   * @param key the figure's name in the JSON line
   * @param target the minimum the figure should reach, or null if it has none
   */
  private record Row(
      String section, String key, String label, double value, int decimals, Double target) {
    boolean hasTarget() {
      return target != null;
    }

    boolean passes() {
      return value >= target;
    }
  }

  private final Map<String, String> context = new LinkedHashMap<>();
  private final List<Row> rows = new ArrayList<>();

  /** A fact about the run (machine, settings), printed above the table and put in the JSON. */
  void context(String key, Object value) {
    context.put(key, String.valueOf(value));
  }

  void figure(String section, String key, String label, double value, int decimals) {
    rows.add(new Row(section, key, label, value, decimals, null));
  }

  void figure(String section, String key, String label, double value, double target) {
    rows.add(new Row(section, key, label, value, 0, target));
  }

  void print(PrintStream out) {
    for (Map.Entry<String, String> e : context.entrySet()) {
      out.printf("%-22s %s%n", e.getKey(), e.getValue());
    }
    out.println();
    out.printf(ROW_FORMAT, "section", "figure", "measured", "target", "");
    String section = null;
    for (Row r : rows) {
      String shownSection = r.section().equals(section) ? "" : r.section();
      section = r.section();
      out.printf(
          ROW_FORMAT,
          shownSection,
          r.label(),
          format(r.value(), r.decimals()),
          r.hasTarget() ? ">= " + format(r.target(), 0) : "",
          r.hasTarget() ? (r.passes() ? PASS : MISS) : "");
    }
    out.println();
    out.println(json());
  }

  String json() {
    StringBuilder b = new StringBuilder("{\"bench\":\"procedure-core\"");
    for (Map.Entry<String, String> e : context.entrySet()) {
      b.append(",\"").append(e.getKey()).append("\":\"").append(escape(e.getValue())).append('"');
    }
    b.append(",\"figures\":{");
    for (int i = 0; i < rows.size(); i++) {
      Row r = rows.get(i);
      b.append(i == 0 ? "" : ",").append('"').append(r.key()).append("\":{\"value\":");
      b.append(String.format(Locale.ROOT, "%." + Math.max(r.decimals(), 1) + "f", r.value()));
      if (r.hasTarget()) {
        b.append(",\"target\":").append(String.format(Locale.ROOT, "%.0f", r.target()));
        b.append(",\"pass\":").append(r.passes());
      }
      b.append('}');
    }
    return b.append("}}").toString();
  }

  private static String format(double value, int decimals) {
    return String.format(Locale.ROOT, "%,." + decimals + "f", value);
  }

  private static String escape(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"");
  }
}
