/**
 * HTTP shared by every server and client of the module: the Jetty server with its limits ({@link
 * dev.baton.confignode.http.JettyHttpServer}, {@link dev.baton.confignode.http.HttpLimits}), the
 * server-independent view of a request its services see ({@link
 * dev.baton.confignode.http.HttpCall}, with the certificate a client presented) and the services,
 * whose answers may come later (long polls, {@link
 * dev.baton.confignode.http.HttpService#serveAsync}), TLS from PEM files and in-memory keys
 * (server, trusting client and mutual contexts), the allowed Host names, the JSON mapper, request
 * parsing and error replies. Uses no other package of the module.
 */
package dev.baton.confignode.http;
