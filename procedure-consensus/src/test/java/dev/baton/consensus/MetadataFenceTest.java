package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.Fence;
import dev.baton.consensus.proto.MetadataEntry;
import dev.baton.consensus.proto.MetadataWrite;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Metadata writes are fenced like store writes: by the term of the entry that carries them and,
 * once a fence opened a new executor epoch in that term, by that epoch. A step of an executor that
 * stopped by itself may still be running when its successor reads the table; its metadata write
 * must not land after that.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MetadataFenceTest {
  private static final String KEY = "region/1";
  private static final long TERM = 5;

  private final ProcedureTable table = new ProcedureTable();
  private final CommandApplier applier = new CommandApplier(table);
  private long index;

  @Test
  void aReplacedEpochCannotWriteMetadataButItsSuccessorCan() {
    assertWritten(write(TERM, 0, "before the fence"));

    CommandReply fence =
        apply(Command.newBuilder().setFence(Fence.newBuilder().setTerm(TERM)).build(), TERM);
    assertEquals(1, fence.getEpoch());

    CommandReply stale = write(TERM, 0, "from the stopped executor");
    assertEquals(CommandReply.KindCase.REJECTED, stale.getKindCase());
    assertTrue(stale.getRejected().contains("epoch 0"), stale.getRejected());
    assertEquals(1, applier.rejectedWriteCount());
    assertValue("before the fence");

    assertWritten(write(TERM, 1, "from the new executor"));
    assertValue("from the new executor");
  }

  @Test
  void aLaterTermStartsWithoutAFenceAndAnEarlierTermIsRefused() {
    apply(Command.newBuilder().setFence(Fence.newBuilder().setTerm(TERM)).build(), TERM);
    assertWritten(write(TERM + 1, 0, "next term"));

    CommandReply old = apply(metadata(TERM, 1, "old term"), TERM + 1);
    assertEquals(CommandReply.KindCase.REJECTED, old.getKindCase());
    assertValue("next term");
  }

  private CommandReply write(long term, long epoch, String value) {
    return apply(metadata(term, epoch, value), term);
  }

  private static Command metadata(long term, long epoch, String value) {
    return Command.newBuilder()
        .setMetadata(
            MetadataWrite.newBuilder()
                .setTerm(term)
                .setEpoch(epoch)
                .addPuts(
                    MetadataEntry.newBuilder()
                        .setKey(KEY)
                        .setValue(ByteString.copyFromUtf8(value))))
        .build();
  }

  private CommandReply apply(Command command, long entryTerm) {
    return applier.apply(command, entryTerm, ++index).reply();
  }

  private static void assertWritten(CommandReply reply) {
    assertEquals(CommandReply.KindCase.WRITTEN, reply.getKindCase(), reply.toString());
  }

  private void assertValue(String expected) {
    assertArrayEquals(
        expected.getBytes(StandardCharsets.UTF_8), table.metadata(KEY).get(KEY), "value of " + KEY);
  }
}
