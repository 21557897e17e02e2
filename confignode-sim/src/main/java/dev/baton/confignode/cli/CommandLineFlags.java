package dev.baton.confignode.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The {@code --name value} (or {@code --name=value}) flags of one CLI command, checked against the
 * flags it declares: unknown, repeated, valueless and missing required flags are usage errors that
 * name the flag. A command may also take positional arguments ({@code get ID}).
 */
final class CommandLineFlags {
  /** A flag a command accepts; one without a {@code valueName} is a switch, given or not. */
  record Flag(String name, String valueName, String description, boolean required) {
    /** A switch: {@code --name} alone, never required. */
    static Flag toggle(String name, String description) {
      return new Flag(name, null, description, false);
    }

    boolean isSwitch() {
      return valueName == null;
    }

    String usage() {
      return isSwitch() ? "--" + name : "--" + name + " " + valueName;
    }
  }

  /** The value {@link #string} gives for a switch that is given. */
  static final String SWITCH_ON = "true";

  static final String HELP = "--help";
  static final String HELP_SHORT = "-h";

  private static final String PREFIX = "--";

  private final Map<String, String> values;
  private final List<String> positionals;

  private CommandLineFlags(Map<String, String> values, List<String> positionals) {
    this.values = values;
    this.positionals = positionals;
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
    return parse(command, flags, List.of(), args);
  }

  /**
   * Parses flags and, in order, the positional arguments named by {@code positionalNames} (each
   * required, e.g. {@code ID} of {@code get ID}); a missing or extra one is a usage error.
   */
  static CommandLineFlags parse(
      String command, List<Flag> flags, List<String> positionalNames, String[] args)
      throws UsageException {
    List<String> positionals = new ArrayList<>();
    Map<String, Flag> known =
        flags.stream().collect(Collectors.toMap(Flag::name, f -> f, (a, b) -> a));
    Map<String, String> values = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith(PREFIX) && positionals.size() < positionalNames.size()) {
        positionals.add(arg);
        continue;
      }
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
      if (flag.isSwitch()) {
        if (value != null) {
          throw new UsageException("flag --" + name + " takes no value, got '" + value + "'");
        }
        value = SWITCH_ON;
      } else if (value == null) {
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
    if (positionals.size() < positionalNames.size()) {
      throw new UsageException(
          "missing argument " + positionalNames.get(positionals.size()) + " for " + command);
    }
    return new CommandLineFlags(values, List.copyOf(positionals));
  }

  String string(String name) {
    return values.get(name);
  }

  /** Whether the flag is given. */
  boolean has(String name) {
    return values.containsKey(name);
  }

  /** The flag's value, or {@code dflt} if it is not given. */
  String string(String name, String dflt) {
    return values.getOrDefault(name, dflt);
  }

  /** Positional argument {@code i}, in the order the command names them. */
  String positional(int i) {
    return positionals.get(i);
  }

  /** The flag's value as an integer in {@code [min, max]}, or {@code dflt} if it is not given. */
  int intValue(String name, int dflt, int min, int max) throws UsageException {
    return values.containsKey(name) ? intValue(name, min, max) : dflt;
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

  /** Prints a usage error and the command's usage to {@code err}; returns the usage exit code. */
  static int usageError(String command, UsageException e, String usage, java.io.PrintStream err) {
    err.println(command + ": " + e.getMessage());
    err.println(usage);
    return ConfigNodeCli.EXIT_USAGE;
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
