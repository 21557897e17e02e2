package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A result handed over without a copy ({@link Procedure#setOwnedResult}): records and snapshots
 * share the procedure's array, which is replaced and never changed, so each keeps what it saw.
 */
@Timeout(60)
class OwnedResultTest {
  private static final String TYPE = "Owning";
  private static final long PROC_ID = 7;

  /** A {@link Steps} whose result is handed over. */
  public static final class Owning extends Steps {
    void handOver(byte[] result) {
      setOwnedResult(result);
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static Owning owning() {
    Owning p = new Owning();
    p.setType(TYPE);
    p.setProcId(PROC_ID);
    p.setParent(Procedure.NO_PARENT, PROC_ID);
    p.transitionTo(ProcedureState.RUNNABLE);
    return p;
  }

  private final ProcedureCodec codec =
      new ProcedureCodec(new ProcedureRegistry().register(TYPE, Owning.class, Owning::new));

  @Test
  void recordsAndSnapshotsKeepTheResultTheySawWhenANewOneIsHandedOver() throws Exception {
    Owning p = owning();
    p.handOver(bytes("first"));
    byte[] firstRecord = codec.encode(p);
    ProcedureInfo firstSnapshot = p.toInfo();

    p.handOver(bytes("second"));
    byte[] secondRecord = codec.encode(p);

    assertArrayEquals(bytes("first"), codec.decode(PROC_ID, firstRecord).toInfo().result());
    assertArrayEquals(bytes("first"), firstSnapshot.result());
    assertArrayEquals(bytes("second"), codec.decode(PROC_ID, secondRecord).toInfo().result());
  }

  @Test
  void changingASnapshotsResultChangesNeitherTheProcedureNorItsRecord() throws Exception {
    Owning p = owning();
    p.handOver(bytes("kept"));
    byte[] seen = p.toInfo().result();
    seen[0] = 'X';
    p.refreshSnapshot();
    seen = p.snapshot().result();
    seen[0] = 'Y';

    assertArrayEquals(bytes("kept"), p.toInfo().result());
    assertArrayEquals(bytes("kept"), codec.decode(PROC_ID, codec.encode(p)).toInfo().result());
  }
}
