/**
 * Fault hooks of the ConfigNode itself (a node started with {@code --faults}), for drills that need
 * kill points the DataNodes' fault injection cannot give: {@link
 * dev.baton.confignode.faults.StateHolds}.
 */
package dev.baton.confignode.faults;
