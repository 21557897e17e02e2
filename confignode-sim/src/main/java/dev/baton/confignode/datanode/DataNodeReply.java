package dev.baton.confignode.datanode;

/**
 * What a DataNode answers to a command it accepted. A repeated command (same procedure id and step)
 * gets the first answer again, with {@code duplicate} set.
 *
 * @param dataNodeId the DataNode that answered
 * @param command the command's name, e.g. {@code "create_region"}
 * @param duplicate true when this is the recorded answer of an earlier, identical command
 * @param changed whether the command changed the DataNode (false: it was already so)
 * @param region the replica after the command; for a delete, the replica removed; null when the
 *     command concerns no region or the region was not here
 * @param highestTerm the highest term the DataNode had seen when it applied the command
 */
public record DataNodeReply(
    int dataNodeId,
    String command,
    boolean duplicate,
    boolean changed,
    RegionReplica region,
    long highestTerm) {

  DataNodeReply asDuplicate() {
    return new DataNodeReply(dataNodeId, command, true, changed, region, highestTerm);
  }
}
