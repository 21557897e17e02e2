package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.baton.procedure.proto.ProcedureEnvelope;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A submission's record under its assigned id (what a replicated state machine stores for it) is
 * the submission with its ids set, whichever way it is parsed back.
 */
@Timeout(10)
class SubmissionRecordTest {
  private final ProcedureCodec codec = new ProcedureCodec(Steps.registry());

  @Test
  void theRecordIsTheSubmissionUnderItsId() throws Exception {
    NonceKey nonce = new NonceKey(7, 9);
    byte[] submission = codec.encodeSubmission(new Steps("s"), nonce, 1_000);
    long procId = 300_000_000_000L; // a long varint: more than a few bytes appended

    byte[] record = ProcedureCodec.assignProcId(submission, procId);

    ProcedureEnvelope expected =
        ProcedureEnvelope.parseFrom(submission).toBuilder()
            .setProcId(procId)
            .setRootProcId(procId)
            .build();
    assertEquals(expected, ProcedureEnvelope.parseFrom(record));
    // and it decodes to the procedure as submitted, under its id
    Procedure<?> decoded = codec.decode(procId, record);
    assertEquals(procId, decoded.getProcId());
    assertEquals(procId, decoded.getRootProcId());
    assertEquals(Procedure.NO_PARENT, decoded.getParentProcId());
    assertEquals(ProcedureState.RUNNABLE, decoded.getState());
    assertEquals(nonce, decoded.stored().getNonceKey());
    assertEquals("s", ((Steps) decoded).name);
  }

  @Test
  void everyMemberMakesTheSameBytes() throws Exception {
    byte[] submission = codec.encodeSubmission(new Steps("same"), null, 5);
    assertArrayEquals(
        ProcedureCodec.assignProcId(submission.clone(), 42),
        ProcedureCodec.assignProcId(submission.clone(), 42));
  }

  @Test
  void aRecordThatIsNoNewRootIsRefused() throws Exception {
    Steps child = new Steps("child");
    child.setType("Steps");
    child.setProcId(5);
    child.setParent(4, 4);
    child.transitionTo(ProcedureState.RUNNABLE);
    byte[] notASubmission = codec.encode(child);
    assertThrows(
        ProcedureCodecException.class, () -> ProcedureCodec.assignProcId(notASubmission, 6));
  }
}
