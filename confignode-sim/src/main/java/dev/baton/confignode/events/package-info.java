/**
 * The stream of procedure changes a ConfigNode serves ({@code GET /api/events}): {@link
 * dev.baton.confignode.events.EventLog} hears every change the node applies to the replicated
 * table, names it by its log position ({@link dev.baton.confignode.events.EventId}, the same on
 * every node, so a watcher resumes on any node), keeps the recent ones for resuming watchers and
 * hands new ones to each watcher's sink. Uses procedure-core and procedure-consensus; no HTTP.
 */
package dev.baton.confignode.events;
