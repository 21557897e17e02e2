/**
 * A local cluster of ConfigNode and DataNode processes of this jar on 127.0.0.1, for the drill and
 * the benchmark: started on free ports, killed with SIGKILL, restarted, cleaned up.
 */
package dev.baton.confignode.local;
