package dev.baton.confignode.admin;

import dev.baton.confignode.http.ErrorReply;
import dev.baton.confignode.http.HttpCall;
import dev.baton.confignode.http.HttpErrors;
import dev.baton.confignode.http.HttpReply;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.util.Map;

/**
 * The operator's console: static HTML, CSS and JavaScript in the jar (resources under {@value
 * #RESOURCES}), served at {@value #PREFIX}. Only the files listed here are served (no path from the
 * request reaches the class loader). The page asks for a token once, keeps it in the tab's
 * sessionStorage and sends it as a Bearer token on every call, the event stream included (read with
 * fetch, not EventSource, so no token ever travels in a URL).
 */
final class ConsoleFiles {
  static final String PREFIX = "/console";

  static final String RESOURCES = "/dev/baton/confignode/console/";

  /** Only same-origin scripts, styles and calls; no framing. */
  static final String CONTENT_SECURITY_POLICY =
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self';"
          + " frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

  private static final Map<String, String> FILES =
      Map.of(
          "index.html", "text/html; charset=utf-8",
          "console.css", "text/css; charset=utf-8",
          "console.js", "text/javascript; charset=utf-8");

  private ConsoleFiles() {}

  /** Whether {@code path} is the console's. */
  static boolean serves(String path) {
    return path.equals(PREFIX) || path.startsWith(PREFIX + "/");
  }

  /** The file a request names: {@code /console/} is the page, other known names their file. */
  static HttpReply answer(HttpCall call) {
    String path = call.path();
    if (path.equals(PREFIX)) {
      call.setResponseHeader("Location", PREFIX + "/");
      return HttpReply.text(HttpURLConnection.HTTP_MOVED_PERM, "text/plain", "see " + PREFIX + "/");
    }
    String name = path.substring(PREFIX.length() + 1);
    if (name.isEmpty()) {
      name = "index.html";
    }
    String type = FILES.get(name);
    if (type == null) {
      return HttpReply.json(
          HttpURLConnection.HTTP_NOT_FOUND,
          new ErrorReply(HttpErrors.NOT_FOUND, "no such console file: " + path));
    }
    call.setResponseHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    call.setResponseHeader("X-Content-Type-Options", "nosniff");
    call.setResponseHeader("Referrer-Policy", "no-referrer");
    call.setResponseHeader("Cache-Control", "no-cache");
    return new HttpReply(HttpURLConnection.HTTP_OK, type, read(name));
  }

  private static byte[] read(String name) {
    try (InputStream in = ConsoleFiles.class.getResourceAsStream(RESOURCES + name)) {
      if (in == null) {
        throw new IllegalStateException("console file " + name + " is missing from the jar");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
