/**
 * The command line: one class per command of the jar, their options and output. Uses every other
 * package of the module; nothing uses it but the entry point.
 */
package dev.baton.confignode.cli;
