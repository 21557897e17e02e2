package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** RootProcedureStack on its own: no threads, no store. */
@Timeout(10)
class RootProcedureStackTest {

  private static ScriptedStep member(long procId, String name) {
    ScriptedStep p = new ScriptedStep(name);
    p.setProcId(procId);
    p.setParent(procId == 1 ? Procedure.NO_PARENT : 1, 1);
    return p;
  }

  private static ProcedureFailure failure(String message) {
    return new ProcedureFailure("test", message, "", false);
  }

  @Test
  void unwindWaitsUntilNoMemberRunsAndOnlyOneUnwinderClaimsIt() {
    RootProcedureStack<TestEnv> stack = new RootProcedureStack<>(1);
    ScriptedStep root = member(1, "r");
    ScriptedStep child = member(2, "r.0");
    stack.addMember(root);
    stack.addMember(child);

    assertTrue(stack.acquire());
    assertTrue(stack.acquire());
    stack.setFailed(child, failure("boom"));
    assertFalse(stack.acquire(), "nothing starts once the tree failed");
    stack.release();
    assertFalse(stack.tryStartRollback(0), "a member still runs");
    stack.release();
    assertTrue(stack.tryStartRollback(0));
    assertFalse(stack.tryStartRollback(0), "already claimed");
    stack.pauseRollback(100);
    assertFalse(stack.tryStartRollback(99), "retry backoff pending");
    assertTrue(stack.tryStartRollback(100));
    assertThrows(IllegalStateException.class, stack::release);
  }

  @Test
  void firstFailureIsKeptAndNamesTheFailedChild() {
    RootProcedureStack<TestEnv> stack = new RootProcedureStack<>(1);
    ScriptedStep child = member(2, "r.0");
    stack.setFailed(child, failure("first"));
    stack.setFailed(member(1, "r"), failure("second"));
    assertTrue(stack.firstFailure().message().contains("child procedure 2"));
    assertTrue(stack.firstFailure().message().contains("first"));
  }

  @Test
  void entriesUnwindNewestFirstAndRebuildFromStoredIndexesInTheSameOrder() {
    RootProcedureStack<TestEnv> stack = new RootProcedureStack<>(1);
    ScriptedStep root = member(1, "r");
    ScriptedStep child = member(2, "r.0");
    stack.addMember(root);
    stack.addMember(child);
    List<Procedure<TestEnv>> executed = List.of(root, root, child, child, root);
    executed.forEach(stack::addEntry);

    // a restart rebuilds the stack from the indexes each member stored
    RootProcedureStack<TestEnv> rebuilt = new RootProcedureStack<>(1);
    rebuilt.addMember(child); // recovery may meet members in any order
    rebuilt.addMember(root);
    rebuilt.rebuildEntries();

    for (RootProcedureStack<TestEnv> s : List.of(stack, rebuilt)) {
      List<Procedure<TestEnv>> unwound = new ArrayList<>();
      while (s.newestEntry() != null) {
        unwound.add(s.newestEntry());
        s.popEntry();
      }
      List<Procedure<TestEnv>> reversed = new ArrayList<>(executed);
      java.util.Collections.reverse(reversed);
      assertEquals(reversed, unwound);
      assertNull(s.newestEntry());
    }

    // new entries after a rebuild continue above the highest stored index
    rebuilt.rebuildEntries();
    ScriptedStep late = member(3, "r.1");
    rebuilt.addMember(late);
    rebuilt.addEntry(late);
    assertSame(late, rebuilt.newestEntry());
    assertEquals(5, late.stored().getStackIndexes()[0]);
  }

  @Test
  void anIndexClaimedByTwoMembersIsReportedAsCorruption() {
    RootProcedureStack<TestEnv> stack = new RootProcedureStack<>(1);
    ScriptedStep root = member(1, "r");
    ScriptedStep child = member(2, "r.0");
    root.stored().setStackIndexes(new int[] {0, 1});
    child.stored().setStackIndexes(new int[] {1});
    stack.addMember(root);
    stack.addMember(child);
    IllegalStateException e = assertThrows(IllegalStateException.class, stack::rebuildEntries);
    assertTrue(e.getMessage().contains("index 1"), e.getMessage());
  }
}
