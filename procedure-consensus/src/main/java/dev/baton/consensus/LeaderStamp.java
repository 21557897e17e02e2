package dev.baton.consensus;

import dev.baton.consensus.proto.Command;
import java.io.IOException;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.statemachine.StateMachine;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.CodedInputStream;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.thirdparty.com.google.protobuf.WireFormat;

/**
 * What the leader writes into an entry before appending it: a submission entry gets the leader's
 * cap on live procedures, replacing whatever its requester put there, so that every member applies
 * the entry against the same cap (the members' own settings may differ) and no requester chooses
 * its own. Other entries are appended as they came.
 */
final class LeaderStamp {
  private final long liveCap;

  /**
   * @param liveCap the most live root procedures a submission may bring the table to; 0: no cap
   */
  LeaderStamp(long liveCap) {
    if (liveCap < 0) {
      throw new IllegalArgumentException(
          "a live procedure cap is 0 (none) or positive: " + liveCap);
    }
    this.liveCap = liveCap;
  }

  long liveCap() {
    return liveCap;
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

  /** The transaction for {@code request}, its log data stamped where it is a submission. */
  TransactionContext startTransaction(StateMachine stateMachine, RaftClientRequest request) {
    TransactionContext.Builder trx =
        TransactionContext.newBuilder().setStateMachine(stateMachine).setClientRequest(request);
    ByteString content = request.getMessage().getContent();
    Command command;
    try {
      if (!holdsSubmission(content)) {
        return trx.build();
      }
      command = ProcedureStateMachine.parseCommand(content);
    } catch (IOException unreadable) {
      return trx.build(); // appended as it came; applying it answers that it is not a command
    }
    if (command.getKindCase() != Command.KindCase.SUBMIT
        || command.getSubmit().getLiveCap() == liveCap) {
      return trx.build();
    }
    Command stamped =
        command.toBuilder().setSubmit(command.getSubmit().toBuilder().setLiveCap(liveCap)).build();
    return trx.setLogData(UnsafeByteOperations.unsafeWrap(stamped.toByteArray())).build();
  }
}
