package dev.baton.confignode.cli;

import java.io.PrintWriter;
import java.lang.reflect.AnnotatedElement;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.MaxValuesExceededException;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.OverwrittenOptionException;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Usage errors: a command line that cannot run as given. Each is one line on stderr, {@code
 * COMMAND: MESSAGE}, whose message names the flag and what it allows, then picocli's suggestions
 * for a misspelled command or flag, the command's synopsis and where its help is; the exit code is
 * {@value ConfigNodeCli#EXIT_USAGE}. The messages:
 *
 * <ul>
 *   <li>{@code unknown flag '--NAME'}, {@code unknown command 'NAME'}, {@code unexpected argument
 *       'ARG'};
 *   <li>{@code missing required flag --NAME LABEL}, {@code missing argument LABEL}, {@code flag
 *       --NAME LABEL needs a value}, {@code flag --NAME LABEL needs a non-empty value}, {@code flag
 *       --NAME is given twice}, {@code flag --NAME takes no value}, {@code flag --NAME must be true
 *       or false};
 *   <li>a value that does not convert: {@code flag --NAME} followed by its converter's message, or
 *       for an integer {@code flag --NAME must be an integer in MIN..MAX, got 'V'} ({@link
 *       Bounds});
 *   <li>what a command refuses itself ({@link CliCommand#usageError}), as it says it.
 * </ul>
 */
final class UsageErrors implements IParameterExceptionHandler {
  private static final Set<Class<?>> INTEGERS =
      Set.of(int.class, Integer.class, long.class, Long.class);

  @Override
  public int handleParseException(ParameterException ex, String[] args) {
    CommandLine cmd = ex.getCommandLine();
    ParameterException shown = unknownFirst(ex);
    PrintWriter err = cmd.getErr();
    err.println(cmd.getCommandName() + ": " + message(shown, args));
    UnmatchedArgumentException.printSuggestions(shown, err);
    err.print(cmd.getHelp().fullSynopsis());
    err.println("See '" + cmd.getCommandSpec().qualifiedName() + " --help'.");
    err.flush();
    return cmd.getCommandSpec().exitCodeOnInvalidInput();
  }

  /**
   * Checks what parsing leaves to the commands: every value given is non-empty, every integer
   * within its {@link Bounds}. Throws the usage error of the first one that is not.
   */
  static void check(ParseResult result) {
    for (ParseResult r = result; r != null; r = r.subcommand()) {
      CommandSpec spec = r.commandSpec();
      for (ArgSpec arg : r.matchedArgs()) {
        List<String> given = arg.originalStringValues();
        if (arg.arity().max > 0 && given.stream().anyMatch(String::isEmpty)) {
          throw new ParameterException(spec.commandLine(), needsNonEmptyValue(arg), arg, "");
        }
        Bounds bounds = bounds(arg);
        if (bounds != null && arg.getValue() instanceof Number n) {
          if (n.longValue() < bounds.min() || n.longValue() > bounds.max()) {
            String value = given.isEmpty() ? n.toString() : given.get(given.size() - 1);
            throw new ParameterException(
                spec.commandLine(), notAnIntegerIn(arg, bounds, value), arg, value);
          }
        }
      }
    }
  }

  /** The message of a usage error, without the command's name. */
  static String message(ParameterException ex, String[] args) {
    if (ex instanceof UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
      return unmatched(u);
    }
    if (ex instanceof MissingParameterException m && !m.getMissing().isEmpty()) {
      return missing(m, args);
    }
    if (ex instanceof OverwrittenOptionException o && o.getOverwritten() != null) {
      return subject(o.getOverwritten()) + " is given twice";
    }
    if (ex instanceof MaxValuesExceededException) {
      String valued = switchGivenAValue(ex.getCommandLine().getCommandSpec(), args);
      if (valued != null) {
        return valued;
      }
    }
    if (ex.getArgSpec() != null && ex.getValue() != null && ex.getCause() != null) {
      return invalidValue(ex.getArgSpec(), ex.getValue(), ex.getCause());
    }
    return ex.getMessage();
  }

  /**
   * A misspelled flag also leaves a required one missing; picocli reports the missing one, but the
   * unknown one is the mistake to show, with its suggestions.
   */
  private static ParameterException unknownFirst(ParameterException ex) {
    List<String> unmatched = ex.getCommandLine().getUnmatchedArguments();
    if (ex instanceof MissingParameterException && !unmatched.isEmpty()) {
      return new UnmatchedArgumentException(ex.getCommandLine(), unmatched);
    }
    return ex;
  }

  private static String unmatched(UnmatchedArgumentException u) {
    String first = u.getUnmatched().get(0);
    CommandSpec spec = u.getCommandLine().getCommandSpec();
    if (u.isUnknownOption()) {
      int eq = first.indexOf('=');
      return "unknown flag '" + (eq > 0 ? first.substring(0, eq) : first) + "'";
    }
    if (!spec.subcommands().isEmpty()) {
      return "unknown command '"
          + first
          + "'; commands: "
          + String.join(", ", spec.subcommands().keySet());
    }
    return "unexpected argument '" + first + "'";
  }

  private static String missing(MissingParameterException m, String[] args) {
    ArgSpec first = m.getMissing().get(0);
    if (!first.isOption()) {
      return "missing argument " + first.paramLabel();
    }
    OptionSpec option = (OptionSpec) first;
    if (Arrays.stream(option.names()).anyMatch(Arrays.asList(args)::contains)) {
      return "flag " + usage(option) + " needs a value";
    }
    String others =
        m.getMissing().stream()
            .skip(1)
            .filter(ArgSpec::isOption)
            .map(a -> ((OptionSpec) a).longestName())
            .collect(Collectors.joining(", "));
    return "missing required flag " + usage(option) + (others.isEmpty() ? "" : "; also " + others);
  }

  /** {@code --faults=yes}: a switch given a value (picocli's exception does not name it). */
  private static String switchGivenAValue(CommandSpec spec, String[] args) {
    for (String arg : args) {
      int eq = arg.indexOf('=');
      OptionSpec option = eq > 0 ? spec.findOption(arg.substring(0, eq)) : null;
      if (option != null && option.arity().max == 0) {
        return subject(option) + " takes no value, got '" + arg.substring(eq + 1) + "'";
      }
    }
    return null;
  }

  private static String invalidValue(ArgSpec arg, String value, Throwable cause) {
    if (value.isEmpty()) {
      return needsNonEmptyValue(arg);
    }
    boolean ownConverter = arg.converters() != null && arg.converters().length > 0;
    if (!ownConverter && INTEGERS.contains(arg.type())) {
      return notAnIntegerIn(arg, bounds(arg), value);
    }
    if (!ownConverter && (arg.type() == boolean.class || arg.type() == Boolean.class)) {
      return subject(arg) + " must be true or false, got '" + value + "'";
    }
    if (cause instanceof CommandLine.TypeConversionException) {
      return subject(arg) + " " + cause.getMessage();
    }
    return subject(arg) + " has an invalid value '" + value + "': " + cause.getMessage();
  }

  private static String notAnIntegerIn(ArgSpec arg, Bounds bounds, String value) {
    return subject(arg)
        + " must be an integer"
        + (bounds == null ? "" : " in " + bounds.min() + ".." + bounds.max())
        + ", got '"
        + value
        + "'";
  }

  private static String needsNonEmptyValue(ArgSpec arg) {
    return (arg.isOption() ? "flag " + usage((OptionSpec) arg) : arg.paramLabel())
        + " needs a non-empty value";
  }

  /** {@code flag --NAME} for an option, its label ({@code ID}) for a positional argument. */
  private static String subject(ArgSpec arg) {
    return arg.isOption() ? "flag " + ((OptionSpec) arg).longestName() : arg.paramLabel();
  }

  /** {@code --NAME LABEL}, as the flag is written. */
  private static String usage(OptionSpec option) {
    return option.longestName() + (option.arity().max > 0 ? " " + option.paramLabel() : "");
  }

  /** The {@link Bounds} of an option's field, or null. */
  private static Bounds bounds(ArgSpec arg) {
    return arg.userObject() instanceof AnnotatedElement e ? e.getAnnotation(Bounds.class) : null;
  }
}
