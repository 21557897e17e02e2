/**
 * JSON over HTTP shared by every server and client of the module: the JSON mapper, request and
 * response helpers, error replies and the loopback server. Uses no other package of the module.
 */
package dev.baton.confignode.http;
