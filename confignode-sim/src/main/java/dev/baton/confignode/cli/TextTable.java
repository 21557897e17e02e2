package dev.baton.confignode.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A plain-text table for people: a header and rows of cells, each column as wide as its widest
 * cell, two spaces apart; the last column is not padded, and a cell longer than {@link #MAX_CELL}
 * is cut with an ellipsis.
 */
final class TextTable {
  /** Longest cell shown; longer ones are cut with an ellipsis. */
  static final int MAX_CELL = 100;

  private static final String GAP = "  ";

  private final List<String[]> rows = new ArrayList<>();

  TextTable(String... header) {
    rows.add(header);
  }

  /** Adds a row of cells (whitespace runs in a cell become one space). */
  TextTable row(String... cells) {
    String[] row = new String[cells.length];
    for (int i = 0; i < cells.length; i++) {
      String cell = cells[i] == null ? "-" : cells[i].replaceAll("\\s+", " ");
      row[i] = cell.length() <= MAX_CELL ? cell : cell.substring(0, MAX_CELL - 1) + "…";
    }
    rows.add(row);
    return this;
  }

  void print(PrintStream out) {
    int[] widths = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.length; i++) {
        line.append(
            i == row.length - 1 ? row[i] : row[i] + " ".repeat(widths[i] - row[i].length()) + GAP);
      }
      out.println(line.toString().stripTrailing());
    }
  }
}
