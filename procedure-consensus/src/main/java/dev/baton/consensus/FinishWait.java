package dev.baton.consensus;

import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.util.Poll;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

/**
 * Waiting for a procedure to finish by reading it again, with pauses growing from {@link
 * ConsensusWaits#AWAIT_POLL_MIN} to {@link ConsensusWaits#AWAIT_POLL_MAX}: what {@link
 * ProcedureClient#await} does (a member waits without reads: {@link ProcedureNode#awaitFinished}).
 */
final class FinishWait {
  /** One read of the procedure. */
  @FunctionalInterface
  interface Read {
    Optional<ProcedureInfo> read() throws IOException, InterruptedException;
  }

  private FinishWait() {}

  /**
   * The procedure once it has finished.
   *
   * @throws TimeoutException if it has not within {@code timeout}, naming its last state
   * @throws IOException if the cluster does not know it, or a read failed
   */
  static ProcedureInfo await(long procId, Duration timeout, Read read)
      throws IOException, TimeoutException, InterruptedException {
    return Poll.backoff(ConsensusWaits.AWAIT_POLL_MIN, ConsensusWaits.AWAIT_POLL_MAX)
        .within(timeout)
        .awaiting("procedure " + procId + " finished")
        .onTimeout(
            expiry ->
                new TimeoutException(
                    "procedure "
                        + procId
                        + " did not finish within "
                        + timeout
                        + "; last "
                        + expiry.lastValue()))
        .until(
            () ->
                read.read()
                    .orElseThrow(
                        () ->
                            new IOException("procedure " + procId + " is unknown to the cluster")),
            ProcedureInfo::finished);
  }
}
