package dev.baton.confignode.rolling;

/**
 * One ConfigNode's running process as its admin API reports it ({@code GET /api/cluster}).
 *
 * @param id the node's id
 * @param address host:port of its admin API
 * @param pid the process id, on the node's host
 * @param startedAtMillis when the process started (epoch ms): a restarted node reports another
 */
public record NodeProcess(String id, String address, long pid, long startedAtMillis) {
  /** The host of the admin API address. */
  public String host() {
    return address.substring(0, address.lastIndexOf(':'));
  }

  /** The port of the admin API address. */
  public String port() {
    return address.substring(address.lastIndexOf(':') + 1);
  }
}
