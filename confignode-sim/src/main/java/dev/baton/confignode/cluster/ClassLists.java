package dev.baton.confignode.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Class lists as the JDK writes them ({@code -XX:DumpLoadedClassList}), merged into one for {@code
 * -Xshare:dump}. A list names one class a line ({@code java/lang/Object}; newer JDKs add an id
 * local to the list, {@code java/lang/Object id: 0}), and has directives ({@code @lambda-proxy
 * ...}, {@code @lambda-form-invoker ...}) that name classes. The merged list names each class once,
 * without ids; a line that refers to another class by id (a class of a custom loader: {@code
 * super:}, {@code source:}) would not survive that and is left out (the child JVMs load every class
 * from their class path).
 */
final class ClassLists {
  /** A class line: its name, maybe followed by its id. */
  private static final Pattern CLASS_LINE = Pattern.compile("^([^\\s#@]+)( id: \\d+)?$");

  private static final String DIRECTIVE = "@";

  private ClassLists() {}

  /**
   * Writes to {@code out} every class of {@code lists} once, in the order first met, then every
   * directive once.
   */
  static void merge(List<Path> lists, Path out) throws IOException {
    Set<String> classes = new LinkedHashSet<>();
    Set<String> directives = new LinkedHashSet<>();
    for (Path list : lists) {
      for (String line : Files.readAllLines(list, StandardCharsets.UTF_8)) {
        Matcher m = CLASS_LINE.matcher(line);
        if (m.matches()) {
          classes.add(m.group(1));
        } else if (line.startsWith(DIRECTIVE)) {
          directives.add(line);
        }
        // comments, blank lines and lines that refer to ids are left out
      }
    }
    List<String> merged = new ArrayList<>(classes);
    merged.addAll(directives);
    Files.write(out, merged, StandardCharsets.UTF_8);
  }
}
