package dev.baton.procedure.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DurableFilesTest {
  @TempDir Path dir;

  private static String permissions(Path p) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }

  @Test
  void freshDirectoriesAndTheirNewParentsAreOwnerOnly() throws IOException {
    Path nested = dir.resolve("a/b/c");
    assertFalse(DurableFiles.createPrivateDirectories(nested));
    assertEquals("rwx------", permissions(dir.resolve("a")));
    assertEquals("rwx------", permissions(dir.resolve("a/b")));
    assertEquals("rwx------", permissions(nested));
  }

  @Test
  void anExistingWiderDirectoryIsReportedAndLeftAsItIs() throws IOException {
    Path open = Files.createDirectory(dir.resolve("open"));
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));
    assertTrue(DurableFiles.createPrivateDirectories(open));
    assertEquals("rwxr-xr-x", permissions(open));

    Path closed = Files.createDirectory(dir.resolve("closed"));
    Files.setPosixFilePermissions(closed, DurableFiles.PRIVATE_DIRECTORY);
    assertFalse(DurableFiles.createPrivateDirectories(closed));
  }

  @Test
  void aFileProceduresStoresFreshDirectoryIsOwnerOnly() throws IOException {
    Path storeDir = dir.resolve("store");
    FileProcedureStore store =
        new FileProcedureStore(storeDir, FileProcedureStore.Config.defaults());
    store.start();
    try {
      assertEquals("rwx------", permissions(storeDir));
    } finally {
      store.stop();
    }
  }

  @Test
  void publishReplacesTheTargetAndLeavesNoSource() throws IOException {
    Path target = Files.writeString(dir.resolve("snapshot"), "old");
    Path source = Files.writeString(dir.resolve("snapshot.tmp"), "new");
    DurableFiles.publish(source, target);
    assertEquals("new", Files.readString(target, StandardCharsets.UTF_8));
    assertFalse(Files.exists(source));
  }
}
