package dev.baton.confignode.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
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
 *
 * <p>A {@code @lambda-proxy} line stands for one lambda call site: a class with several call sites
 * of one shape (Ratis' configuration keys: a dozen {@code RaftProperties::setInt}) has as many
 * equal lines, and the archive holds one proxy class per line, which the call sites take in turn.
 * So the merged list keeps each directive as often as the list that has it most often (the lists
 * are of the same code, so they share call sites rather than add them).
 */
final class ClassLists {
  /** A class line: its name, maybe followed by its id. */
  private static final Pattern CLASS_LINE = Pattern.compile("^([^\\s#@]+)( id: \\d+)?$");

  private static final String DIRECTIVE = "@";

  private ClassLists() {}

  /**
   * Writes to {@code out} every class of {@code lists} once, in the order first met, then every
   * directive, in the order first met, as many times as the list that has it most often.
   */
  static void merge(List<Path> lists, Path out) throws IOException {
    Set<String> classes = new LinkedHashSet<>();
    Map<String, Integer> directives = new LinkedHashMap<>();
    for (Path list : lists) {
      Map<String, Integer> here = new HashMap<>();
      for (String line : Files.readAllLines(list, StandardCharsets.UTF_8)) {
        Matcher m = CLASS_LINE.matcher(line);
        if (m.matches()) {
          classes.add(m.group(1));
        } else if (line.startsWith(DIRECTIVE)) {
          here.merge(line, 1, Integer::sum);
          directives.merge(line, here.get(line), Math::max);
        }
        // comments, blank lines and lines that refer to ids are left out
      }
    }
    List<String> merged = new ArrayList<>(classes);
    directives.forEach((line, times) -> merged.addAll(Collections.nCopies(times, line)));
    Files.write(out, merged, StandardCharsets.UTF_8);
  }
}
