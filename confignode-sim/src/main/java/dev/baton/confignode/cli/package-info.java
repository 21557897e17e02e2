/**
 * The command line, on picocli: one {@code @Command} class per command of the jar ({@link
 * dev.baton.confignode.cli.ConfigNodeCli} lists them), their typed options and converters, and the
 * usage errors ({@link dev.baton.confignode.cli.UsageErrors}). Uses every other package of the
 * module; nothing uses it but the entry point.
 */
package dev.baton.confignode.cli;
