/**
 * The ConfigNode simulation jar's entry point only ({@link dev.baton.confignode.ConfigNodeMain});
 * the commands it runs are in {@code cli}.
 */
package dev.baton.confignode;
