package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.StoreWrite;
import dev.baton.consensus.proto.SubmitResult;
import dev.baton.procedure.NonceKey;
import dev.baton.procedure.ProcedureCodec;
import dev.baton.procedure.ProcedureState;
import dev.baton.procedure.store.StoreBatch;
import dev.baton.procedure.store.StoreRecord;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A running leader's own submissions ride in its executor's store entries (one log entry for both),
 * and are applied as a submit entry would apply them, even where the fence refuses the batches
 * beside them: a submission is valid in any term.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CarriedSubmissionTest {
  private static final long TERM = 4;
  private static final int SUBMISSIONS = 40;

  private final ProcedureCodec codec = new ProcedureCodec(Work.registry());

  @TempDir Path dir;

  @Test
  void carriedSubmissionsAreAppliedWhetherOrNotTheBatchesBesideThemAre() throws Exception {
    ProcedureTable table = new ProcedureTable();
    CommandApplier applier = new CommandApplier(table);
    ByteString first = envelope("first", new NonceKey(1, 1));
    ByteString second = envelope("second", new NonceKey(1, 2));
    StoreBatch batch = StoreBatch.builder().upsert(new StoreRecord(77, new byte[] {7})).build();

    CommandApplier.Outcome fenced = applier.apply(write(TERM - 1, batch, first, second), TERM, 1);

    assertEquals(CommandReply.KindCase.REJECTED, fenced.reply().getKindCase());
    assertNull(table.get(77), "a fenced batch changed the table");
    List<SubmitResult> results = fenced.reply().getCarried().getResultsList();
    assertEquals(2, results.size());
    assertEquals(2, fenced.submitted().size());
    for (int i = 0; i < 2; i++) {
      long procId = results.get(i).getProcId();
      assertEquals(fenced.submitted().get(i).procId(), procId);
      assertNotNull(table.get(procId), "submission " + i + " is not in the table");
    }

    // the same nonce again, now beside a batch that counts: the first id, nothing new created
    CommandApplier.Outcome written = applier.apply(write(TERM, batch, first), TERM, 2);
    assertEquals(CommandReply.KindCase.WRITTEN, written.reply().getKindCase());
    assertNotNull(table.get(77));
    assertEquals(
        results.get(0).getProcId(), written.reply().getCarried().getResults(0).getProcId());
    assertTrue(written.submitted().isEmpty());
    assertEquals(3, applier.carriedSubmissionCount());
    assertEquals(0, applier.appliedSubmitEntryCount());

    // a carried submission that is no valid envelope is refused by name; the rest still count
    CommandApplier.Outcome bad =
        applier.apply(
            write(TERM, batch, ByteString.copyFromUtf8("not an envelope"), envelope("third", null)),
            TERM,
            3);
    assertEquals(CommandReply.KindCase.WRITTEN, bad.reply().getKindCase());
    assertTrue(bad.reply().getCarried().getResults(0).hasRejected());
    assertTrue(bad.reply().getCarried().getResults(1).getProcId() > 0);
  }

  @Test
  void anEntryOfAStaleTermThatCarriesOnlySubmissionsIsNoRejectedWrite() throws Exception {
    ProcedureTable table = new ProcedureTable();
    CommandApplier applier = new CommandApplier(table);
    Command onlySubmissions =
        Command.newBuilder()
            .setWrite(
                StoreWrite.newBuilder()
                    .setTerm(TERM - 1)
                    .addEnvelopes(envelope("alone", new NonceKey(2, 1))))
            .build();

    CommandApplier.Outcome outcome = applier.apply(onlySubmissions, TERM, 1);

    long procId = outcome.reply().getCarried().getResults(0).getProcId();
    assertTrue(procId > 0, outcome.reply().toString());
    assertNotNull(table.get(procId));
    assertEquals(0, applier.rejectedWriteCount(), "no store batch was refused");
    assertEquals(0, applier.appliedWriteEntryCount(), "the entry carried no store batch");
    assertEquals(1, applier.carriedSubmissionCount());
  }

  @Test
  void aRunningLeadersSubmissionsShareItsStoreEntries() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      long submitEntriesBefore = leader.metrics().appliedSubmitEntryCount();
      long carriedBefore = leader.metrics().carriedSubmissionCount();

      List<CompletableFuture<Long>> ids = new ArrayList<>();
      for (int i = 0; i < SUBMISSIONS; i++) {
        ids.add(leader.submit(new Work("w" + i), new NonceKey(9, i)));
      }
      for (CompletableFuture<Long> id : ids) {
        long procId = id.get(30, TimeUnit.SECONDS);
        assertEquals(
            ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(leader, procId).state());
      }

      assertEquals(
          SUBMISSIONS,
          leader.metrics().carriedSubmissionCount() - carriedBefore,
          "submissions not carried by store entries");
      assertEquals(submitEntriesBefore, leader.metrics().appliedSubmitEntryCount());
      // a retry of a carried submission answers its first id
      assertEquals(
          ids.get(0).get(),
          leader.submit(new Work("w0"), new NonceKey(9, 0)).get(30, TimeUnit.SECONDS));
      cluster.awaitSameTables();
    }
  }

  private ByteString envelope(String name, NonceKey nonce) throws Exception {
    return ByteString.copyFrom(codec.encodeSubmission(new Work(name), nonce, 1_000));
  }

  private static Command write(long term, StoreBatch batch, ByteString... envelopes) {
    StoreWrite.Builder w =
        StoreWrite.newBuilder().setTerm(term).addBatches(batch.toProto().toByteString());
    for (ByteString e : envelopes) {
      w.addEnvelopes(e);
    }
    return Command.newBuilder().setWrite(w).build();
  }
}
