package dev.baton.confignode;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The {@code --name value} (or {@code --name=value}) flags of one CLI command, checked against the
 * flags it declares: unknown, repeated, valueless and missing required flags are usage errors that
 * name the flag.
 */
final class CommandLineFlags {
  /** A flag a command accepts. */
  record Flag(String name, String valueName, String description, boolean required) {
    String usage() {
      return "--" + name + " " + valueName;
    }
  }

  static final String HELP = "--help";
  static final String HELP_SHORT = "-h";

  private static final String PREFIX = "--";

  private final Map<String, String> values;

  private CommandLineFlags(Map<String, String> values) {
    this.values = values;
  }

  /** Whether {@code args} ask for help (anywhere on the line). */
  static boolean wantsHelp(String[] args) {
    for (String arg : args) {
      if (arg.equals(HELP) || arg.equals(HELP_SHORT)) {
        return true;
      }
    }
    return false;
  }

  static CommandLineFlags parse(String command, List<Flag> flags, String[] args)
      throws UsageException {
    Map<String, Flag> known =
        flags.stream().collect(Collectors.toMap(Flag::name, f -> f, (a, b) -> a));
    Map<String, String> values = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith(PREFIX)) {
        throw new UsageException(
            "unexpected argument '" + arg + "' for " + command + "; flags: " + names(flags));
      }
      String name = arg.substring(PREFIX.length());
      String value = null;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      Flag flag = known.get(name);
      if (flag == null) {
        throw new UsageException(
            "unknown flag '--" + name + "' for " + command + "; flags: " + names(flags));
      }
      if (value == null) {
        if (i + 1 >= args.length || args[i + 1].startsWith(PREFIX)) {
          throw new UsageException("flag " + flag.usage() + " needs a value");
        }
        value = args[++i];
      }
      if (value.isEmpty()) {
        throw new UsageException("flag " + flag.usage() + " needs a non-empty value");
      }
      if (values.putIfAbsent(name, value) != null) {
        throw new UsageException("flag --" + name + " is given twice");
      }
    }
    for (Flag flag : flags) {
      if (flag.required() && !values.containsKey(flag.name())) {
        throw new UsageException("missing required flag " + flag.usage());
      }
    }
    return new CommandLineFlags(values);
  }

  String string(String name) {
    return values.get(name);
  }

  /** The flag's value as an integer in {@code [min, max]}. */
  int intValue(String name, int min, int max) throws UsageException {
    String raw = values.get(name);
    try {
      int value = Integer.parseInt(raw);
      if (value >= min && value <= max) {
        return value;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new UsageException(
        "flag --" + name + " must be an integer in " + min + ".." + max + ", got '" + raw + "'");
  }

  /** One line per flag, for a command's help. */
  static String describe(List<Flag> flags) {
    return flags.stream()
        .map(
            f ->
                String.format(
                    "  %-22s %s%s", f.usage(), f.description(), f.required() ? " (required)" : ""))
        .collect(Collectors.joining(System.lineSeparator()));
  }

  private static String names(List<Flag> flags) {
    return flags.stream().map(f -> PREFIX + f.name()).collect(Collectors.joining(", "));
  }
}
