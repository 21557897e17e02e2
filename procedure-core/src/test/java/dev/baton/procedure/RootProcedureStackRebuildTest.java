package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class RootProcedureStackRebuildTest {

  private static Steps member(long procId, int... indexes) {
    Steps p = new Steps("p" + procId);
    p.setProcId(procId);
    p.stored().setStackIndexes(indexes);
    return p;
  }

  @Test
  void soleMemberGetsOneEntryPerStoredIndexAndNewIndexesContinueAfterTheHighest() {
    RootProcedureStack<TestEnv> stack = new RootProcedureStack<>(1);
    Steps root = member(1, 0, 2, 5);
    stack.addMember(root);
    stack.rebuildEntries();
    assertEquals(3, stack.entryCount());
    assertSame(root, stack.newestEntry());
    stack.addEntry(root);
    assertArrayEquals(new int[] {0, 2, 5, 6}, root.stored().getStackIndexes());
  }

  @Test
  void soleMemberWithUnorderedOrRepeatedIndexesIsRebuiltLikeAnyStack() {
    RootProcedureStack<TestEnv> stack = new RootProcedureStack<>(1);
    Steps root = member(1, 4, 1, 4);
    stack.addMember(root);
    stack.rebuildEntries();
    assertEquals(2, stack.entryCount(), "distinct indexes 1 and 4");
    stack.addEntry(root);
    assertEquals(5, root.stored().getStackIndexes()[3]);
  }

  @Test
  void membersAreInterleavedByIndex() {
    RootProcedureStack<TestEnv> stack = new RootProcedureStack<>(1);
    Steps root = member(1, 0, 3);
    Steps child = member(2, 1, 2);
    stack.addMember(root);
    stack.addMember(child);
    stack.rebuildEntries();
    assertEquals(4, stack.entryCount());
    assertSame(root, stack.newestEntry());
    stack.popEntry();
    assertSame(child, stack.newestEntry());
  }

  @Test
  void emptyStackStartsAtIndexZero() {
    RootProcedureStack<TestEnv> stack = new RootProcedureStack<>(1);
    Steps root = member(1);
    stack.addMember(root);
    stack.rebuildEntries();
    assertEquals(0, stack.entryCount());
    stack.addEntry(root);
    assertArrayEquals(new int[] {0}, root.stored().getStackIndexes());
  }
}
