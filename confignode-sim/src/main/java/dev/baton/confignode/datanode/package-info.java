/**
 * The simulated DataNode: the side of the cluster that ConfigNode procedures act on. Uses {@code
 * http} and {@code waits} of this module, and procedure-consensus' {@code tls} (certificates and
 * the identities they name).
 *
 * <p>{@link dev.baton.confignode.datanode.DataNodeServer} serves the HTTP API below on 127.0.0.1
 * unless bound elsewhere (JSON bodies, at most {@link
 * dev.baton.confignode.datanode.DataNodeServer#MAX_BODY_BYTES}); {@link
 * dev.baton.confignode.datanode.DataNodeClient} calls it with typed methods, made by a {@link
 * dev.baton.confignode.datanode.DataNodeConnector} (plain HTTP, or HTTPS presenting a certificate).
 *
 * <p>With TLS ({@link dev.baton.confignode.datanode.DataNodeGuard}) it serves HTTPS only and every
 * client must present a certificate of the cluster's CA: commands need a ConfigNode's (member)
 * certificate, whose node id is recorded with each applied command and stale refusal ({@code
 * caller}); {@code GET /state} any identity of the CA; the fault routes an admin client's. Anything
 * else is a 403 {@code forbidden} that changes nothing and is logged with the caller. Without TLS
 * anyone who reaches it may call everything, so only a loopback bind is allowed (or {@code
 * --insecure}). The fault routes exist only when the DataNode is started with them ({@code
 * --faults}); without, every {@code /faults} path is a 404 saying so.
 *
 * <table>
 *   <caption>DataNode HTTP API</caption>
 *   <tr><th>method and path</th><th>body</th><th>answer</th></tr>
 *   <tr><th colspan="3">commands (with TLS: a ConfigNode's certificate)</th></tr>
 *   <tr><td>POST /ping</td><td>{term, procId, step}</td><td>DataNodeReply</td></tr>
 *   <tr><td>POST /regions/create</td>
 *       <td>{term, procId, step, regionId, database, kind: SCHEMA|DATA, role?: LEADER|FOLLOWER}</td>
 *       <td>DataNodeReply; existing replica of the same database and kind: changed=false;
 *           of another: 409 region_conflict</td></tr>
 *   <tr><td>POST /regions/delete</td><td>{term, procId, step, regionId}</td>
 *       <td>DataNodeReply; a missing replica: changed=false</td></tr>
 *   <tr><td>POST /regions/role</td><td>{term, procId, step, regionId, role}</td>
 *       <td>DataNodeReply; 409 region_not_found</td></tr>
 *   <tr><td>POST /regions/sync</td><td>{term, procId, step, regionId, dataVersion}</td>
 *       <td>DataNodeReply, dataVersion = max(current, given); 409 region_not_found</td></tr>
 *   <tr><td>POST /cache/invalidate</td><td>{term, procId, step, database}</td>
 *       <td>DataNodeReply; appended to the invalidation log</td></tr>
 *   <tr><th colspan="3">reads (with TLS: any certificate of the CA naming an identity)</th></tr>
 *   <tr><td>GET /state</td><td></td><td>DataNodeState</td></tr>
 *   <tr><th colspan="3">fault control (only with --faults; with TLS: an admin client)</th></tr>
 *   <tr><td>POST /faults</td><td>{failNext?, latencyMs?, stall?, stallStep?}</td><td>FaultState</td></tr>
 *   <tr><td>POST /faults/release</td><td></td><td>FaultState</td></tr>
 *   <tr><td>POST /faults/reset</td><td></td><td>FaultState</td></tr>
 * </table>
 *
 * <p>Every command: a term below the highest seen is refused with 409 {@code stale_term} and
 * recorded; a higher one is recorded first. A (procId, step) already in the ledger returns the
 * first answer with {@code duplicate: true} (409 {@code idempotency_conflict} if the arguments
 * differ). A command may carry {@code seq}, its number in the order the sender's term sent commands
 * (see {@link dev.baton.confignode.datanode.CommandContext#seq()}); one that comes before a command
 * of the same procedure already applied here is refused with 409 {@code superseded} and recorded
 * (checked when the command is applied, after any stall, not when it arrives). Errors are {@code
 * {error, message}} with the codes of {@link dev.baton.confignode.datanode.DataNodeErrors}. Every
 * accepted change is fsynced before the answer.
 */
package dev.baton.confignode.datanode;
