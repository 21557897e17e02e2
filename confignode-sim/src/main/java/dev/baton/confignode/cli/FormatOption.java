package dev.baton.confignode.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** {@code --format json|table} of the commands that print procedures. */
final class FormatOption {
  /** How procedures are printed; the names are the flag's values. */
  enum Format {
    json,
    table
  }

  @Option(
      names = "--format",
      paramLabel = "json|table",
      converter = Converter.class,
      description = "print JSON, or a table for people")
  Format format = Format.json;

  boolean table() {
    return format == Format.table;
  }

  /** Reads {@code json} or {@code table}. */
  static final class Converter implements ITypeConverter<Format> {
    @Override
    public Format convert(String value) {
      try {
        return Format.valueOf(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException("must be json or table, got '" + value + "'");
      }
    }
  }
}
