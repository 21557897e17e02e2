package dev.baton.consensus;

import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.Submit;
import dev.baton.procedure.ProcedureCodec;
import dev.baton.procedure.ProcedureCodecException;
import java.io.IOException;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.statemachine.StateMachine;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.CodedInputStream;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.thirdparty.com.google.protobuf.WireFormat;

/**
 * What the leader checks and writes before it appends a requested entry, so that nothing a
 * requester forges reaches the log:
 *
 * <ul>
 *   <li>Executor-only commands (store writes, metadata writes, fences, id reservations) are and the
 *       outcomes of operator actions are accepted only from this node's own in-process submitter,
 *       whose client id never leaves the process; from anyone else they are refused, whatever term
 *       they carry, with a message that names no term or epoch.
 *   <li>A submission entry is checked as the executor will read it: each envelope within {@link
 *       ProcedureNode#MAX_SUBMISSION_BYTES}, of a registered type, with a state that decodes.
 *   <li>A submission entry gets the leader's cap on live procedures, replacing whatever its
 *       requester put there, so that every member applies it against the same cap.
 * </ul>
 *
 * An entry that cannot be read as a command is appended as it came: applying it answers that it is
 * not a command and changes nothing.
 */
final class EntryAdmission {
  private final ClientId localClient;
  private final long liveCap;
  private final ProcedureCodec codec;

  /**
   * @param localClient the client id of this node's in-process submitter
   * @param liveCap the most live root procedures a submission may bring the table to; 0: no cap
   * @param codec decodes submissions with the node's registry
   */
  EntryAdmission(ClientId localClient, long liveCap, ProcedureCodec codec) {
    if (liveCap < 0) {
      throw new IllegalArgumentException(
          "a live procedure cap is 0 (none) or positive: " + liveCap);
    }
    this.localClient = localClient;
    this.liveCap = liveCap;
    this.codec = codec;
  }

  long liveCap() {
    return liveCap;
  }

  ClientId localClient() {
    return localClient;
  }

  /** The transaction for {@code request}: refused, stamped, or as it came. */
  TransactionContext startTransaction(StateMachine stateMachine, RaftClientRequest request) {
    TransactionContext.Builder builder =
        TransactionContext.newBuilder().setStateMachine(stateMachine).setClientRequest(request);
    boolean local = localClient.equals(request.getClientId());
    ByteString content = request.getMessage().getContent();
    Command command;
    try {
      if (local && !holdsSubmission(content)) {
        return builder.build(); // the executor's own writes: neither copied nor parsed
      }
      command = ProcedureStateMachine.parseCommand(content);
    } catch (IOException unreadable) {
      return builder.build();
    }
    Command.KindCase kind = command.getKindCase();
    if (!local
        && kind != Command.KindCase.SUBMIT
        && kind != Command.KindCase.ABORT
        && kind != Command.KindCase.ACTION) {
      return refuse(
          builder,
          "a "
              + describe(kind)
              + " is written by the leader's executor only; requesters may submit, abort and act"
              + " as operators");
    }
    if (kind != Command.KindCase.SUBMIT) {
      return builder.build();
    }
    Submit submit = command.getSubmit();
    if (!local) {
      for (int i = 0; i < submit.getEnvelopesCount(); i++) {
        String bad = check(submit.getEnvelopes(i).toByteArray());
        if (bad != null) {
          return refuse(builder, "submission " + (i + 1) + " of the entry is not valid: " + bad);
        }
      }
    }
    if (submit.getLiveCap() == liveCap) {
      return builder.build();
    }
    Command stamped = command.toBuilder().setSubmit(submit.toBuilder().setLiveCap(liveCap)).build();
    return builder.setLogData(UnsafeByteOperations.unsafeWrap(stamped.toByteArray())).build();
  }

  /** Why {@code envelope} cannot be a submission, or null if it can. */
  private String check(byte[] envelope) {
    if (envelope.length > ProcedureNode.MAX_SUBMISSION_BYTES) {
      return envelope.length + " bytes, the limit is " + ProcedureNode.MAX_SUBMISSION_BYTES;
    }
    try {
      codec.checkSubmission(envelope);
      return null;
    } catch (ProcedureCodecException e) {
      return e.getMessage();
    }
  }

  private static TransactionContext refuse(TransactionContext.Builder builder, String why) {
    TransactionContext trx = builder.build();
    trx.setException(new IllegalArgumentException(why));
    return trx;
  }

  private static String describe(Command.KindCase kind) {
    return switch (kind) {
      case WRITE -> "store write";
      case METADATA -> "metadata write";
      case FENCE -> "fence";
      case RESERVE -> "procedure id reservation";
      case ACTION_RESULT -> "operator action outcome";
      default -> "command of an unknown kind";
    };
  }

  /**
   * Whether any top-level field of the entry is a submission. Only the field tags are read (the
   * store writes that make up most entries are neither copied nor parsed); a submission placed
   * after other fields still counts, since the last field of a oneof is the one that applies.
   */
  private static boolean holdsSubmission(ByteString content) throws IOException {
    CodedInputStream in = content.newCodedInput();
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      if (WireFormat.getTagFieldNumber(tag) == Command.SUBMIT_FIELD_NUMBER) {
        return true;
      }
      in.skipField(tag);
    }
    return false;
  }
}
