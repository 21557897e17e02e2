/**
 * Who may use the admin API and what they did: bearer tokens of principals with roles ({@link
 * dev.baton.confignode.auth.TokenFile}, {@link dev.baton.confignode.auth.AccessControl}) and the
 * audit trail ({@link dev.baton.confignode.auth.AuditLog}). Uses {@code http} for JSON only.
 */
package dev.baton.confignode.auth;
