/**
 * Hosts on one machine: Linux network namespaces joined by a bridge, each with an address of its
 * own and no route beyond the hosts' subnet ({@link dev.baton.confignode.hosts.NetnsHosts}), and
 * the network faults between them ({@link dev.baton.confignode.hosts.NetnsPartitions}), each
 * verified with a probe connection. Runs {@code ip} (iproute2) as root; uses only the JDK and
 * slf4j.
 */
package dev.baton.confignode.hosts;
