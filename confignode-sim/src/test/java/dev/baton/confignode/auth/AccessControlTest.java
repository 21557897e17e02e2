package dev.baton.confignode.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class AccessControlTest {
  @TempDir Path dir;

  private AccessControl control() throws IOException {
    return AccessControl.withTokens(TokenFile.read(TokenFileTest.standard(dir)));
  }

  private static String bearer(String token) {
    return "Bearer " + token;
  }

  @Test
  void rolesNeededByRoute() {
    assertEquals(Role.READER, AccessControl.required("GET", "/metrics"));
    assertEquals(Role.READER, AccessControl.required("GET", "/api/faults/hold"));
    assertEquals(Role.OPERATOR, AccessControl.required("POST", "/api/procedures"));
    assertEquals(Role.OPERATOR, AccessControl.required("POST", "/api/procedures/7/abort"));
    assertEquals(Role.OPERATOR, AccessControl.required("POST", "/api/flows/3/nodes/a/resume"));
    assertEquals(Role.ADMIN, AccessControl.required("POST", "/api/faults/hold"));
    assertEquals(Role.ADMIN, AccessControl.required("DELETE", "/api/faults/hold"));
    assertEquals(Role.OPERATOR, AccessControl.required("POST", "/api/faultsX"));
  }

  @Test
  void noTokenIs401AReaderPostingIs403AnOperatorSubmits() throws IOException {
    AccessControl ac = control();
    AccessControl.Decision none = ac.check("GET", "/api/cluster", null);
    assertEquals(AccessControl.UNAUTHORIZED, none.status());
    assertTrue(none.message().contains("Authorization: Bearer"), none.message());
    assertEquals(AccessControl.UNAUTHORIZED, ac.check("GET", "/api/cluster", "Basic x").status());
    assertEquals(
        AccessControl.UNAUTHORIZED,
        ac.check("GET", "/api/cluster", bearer("z".repeat(40))).status());

    AccessControl.Decision reader =
        ac.check("POST", "/api/procedures", bearer(TokenFileTest.READER_TOKEN));
    assertEquals(AccessControl.FORBIDDEN, reader.status());
    assertTrue(reader.message().contains("needs operator"), reader.message());
    assertTrue(ac.check("GET", "/metrics", bearer(TokenFileTest.READER_TOKEN)).allowed());

    assertTrue(ac.check("POST", "/api/procedures", bearer(TokenFileTest.OPERATOR_TOKEN)).allowed());
    AccessControl.Decision operator =
        ac.check("POST", "/api/faults/hold", bearer(TokenFileTest.OPERATOR_TOKEN));
    assertEquals(AccessControl.FORBIDDEN, operator.status());
    assertTrue(operator.message().contains("needs admin"), operator.message());
    assertTrue(ac.check("POST", "/api/faults/hold", bearer(TokenFileTest.ADMIN_TOKEN)).allowed());
    assertEquals(
        "alice",
        ac.check("GET", "/api/cluster", "bearer " + TokenFileTest.OPERATOR_TOKEN)
            .principal()
            .orElseThrow()
            .name());
  }

  @Test
  void withoutTokensEveryRequestIsAnonymous() {
    AccessControl open = AccessControl.open();
    assertFalse(open.requiresTokens());
    AccessControl.Decision d = open.check("POST", "/api/faults/hold", null);
    assertTrue(d.allowed());
    assertEquals(Principal.ANONYMOUS, d.principal().orElseThrow());
  }
}
