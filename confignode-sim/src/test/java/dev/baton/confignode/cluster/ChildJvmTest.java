package dev.baton.confignode.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ChildJvmTest {

  @Test
  void mainClassNamesTheJarsEntryPoint() throws Exception {
    Method main = Class.forName(ChildJvm.MAIN_CLASS).getMethod("main", String[].class);
    assertTrue(Modifier.isStatic(main.getModifiers()), "main must be static");
    assertEquals(void.class, main.getReturnType());
  }
}
