package dev.baton.confignode.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ClassListsTest {
  @TempDir Path dir;

  @Test
  void mergedListsNameEveryClassOnceThenEveryDirectiveAsOftenAsOneListHasIt() throws Exception {
    Path leader =
        write(
            "leader.classes",
            "# NOTE: Do not modify this file.",
            "java/lang/Object",
            "a/Leader",
            "a/Shared",
            "@lambda-proxy a/Shared run ()Ljava/lang/Runnable;",
            "@lambda-form-invoker [LF_RESOLVE] java.lang.invoke.Invokers$Holder invoker L_L",
            "@lambda-proxy a/Shared run ()Ljava/lang/Runnable;");
    Path follower =
        write(
            "follower.classes",
            "# NOTE: Do not modify this file.",
            "java/lang/Object id: 0",
            "a/Shared id: 1",
            "a/Follower id: 2",
            "a/Custom id: 3 super: 0 source: /some.jar",
            "@lambda-proxy a/Shared run ()Ljava/lang/Runnable;",
            "@lambda-proxy a/Follower get ()Ljava/util/function/Supplier;",
            "@lambda-proxy a/Follower get ()Ljava/util/function/Supplier;",
            "@lambda-proxy a/Follower get ()Ljava/util/function/Supplier;");
    Path merged = dir.resolve("merged.classes");

    ClassLists.merge(List.of(leader, follower), merged);

    assertEquals(
        List.of(
            "java/lang/Object",
            "a/Leader",
            "a/Shared",
            "a/Follower",
            // two call sites of one shape in the leader's list, one of them in the follower's
            "@lambda-proxy a/Shared run ()Ljava/lang/Runnable;",
            "@lambda-proxy a/Shared run ()Ljava/lang/Runnable;",
            "@lambda-form-invoker [LF_RESOLVE] java.lang.invoke.Invokers$Holder invoker L_L",
            "@lambda-proxy a/Follower get ()Ljava/util/function/Supplier;",
            "@lambda-proxy a/Follower get ()Ljava/util/function/Supplier;",
            "@lambda-proxy a/Follower get ()Ljava/util/function/Supplier;"),
        Files.readAllLines(merged, StandardCharsets.UTF_8));
  }

  private Path write(String name, String... lines) throws Exception {
    return Files.write(dir.resolve(name), List.of(lines), StandardCharsets.UTF_8);
  }
}
