package dev.llmratelimit.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's headless Chromium driven through Debian's chromedriver over the W3C WebDriver protocol
 * (plain JSON over HTTP, so no client library can fetch a browser of its own). Each instance
 * starts its own chromedriver on a free port with a fresh profile, and stops both on close.
 */
public final class Chromium implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> FLAGS = List.of("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--window-size=1200,900");

    private final Process driver;
    private final String base;
    private final String session;

    private Chromium(Process driver, String base, String session) {
        this.driver = driver;
        this.base = base;
        this.session = session;
    }

    /** Starts chromedriver and a browser session; fails when Debian's packages are not installed. */
    public static Chromium start(Path profileParent) throws IOException, InterruptedException {
        Path chromedriver = firstExisting("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver");
        Path browser = firstExisting("/usr/lib/chromium/chromium", "/usr/bin/chromium");
        int port = RedisServer.freePort();
        Process driver = new ProcessBuilder(chromedriver.toString(), "--port=" + port)
                .redirectErrorStream(true).redirectOutput(profileParent.resolve("chromedriver.log").toFile()).start();
        String base = "http://127.0.0.1:" + port;
        try {
            awaitReady(base);
            Path profile = Files.createTempDirectory(profileParent, "chromium-profile-");
            ObjectNode options = JSON.createObjectNode();
            options.put("binary", browser.toString());
            var args = options.putArray("args");
            FLAGS.forEach(args::add);
            args.add("--user-data-dir=" + profile.toAbsolutePath());
            ObjectNode capabilities = JSON.createObjectNode();
            capabilities.putObject("capabilities").putObject("alwaysMatch").put("browserName", "chrome")
                    .set("goog:chromeOptions", options);
            JsonNode answer = call("POST", base + "/session", capabilities);
            return new Chromium(driver, base, answer.get("value").get("sessionId").asText());
        } catch (IOException | RuntimeException e) {
            driver.destroyForcibly();
            throw e;
        }
    }

    /** Opens the address and waits until the document has loaded. */
    public void open(String url) throws IOException {
        ObjectNode body = JSON.createObjectNode().put("url", url);
        call("POST", base + "/session/" + session + "/url", body);
    }

    /** Runs a script in the page ({@code return ...;}) and gives back its result as JSON. */
    public JsonNode execute(String script) throws IOException {
        ObjectNode body = JSON.createObjectNode().put("script", script);
        body.putArray("args");
        return call("POST", base + "/session/" + session + "/execute/sync", body).get("value");
    }

    /** The text of the first element matching the CSS selector, or {@code null} when none does. */
    public String text(String selector) throws IOException {
        JsonNode value = execute("var e = document.querySelector(" + JSON.writeValueAsString(selector)
                + "); return e === null ? null : e.textContent;");
        return value.isNull() ? null : value.asText();
    }

    /** Waits (polling every 50 ms, at most {@code limit}) until the element's text is the expected one. */
    public String awaitText(String selector, String expected, Duration limit) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        String text = text(selector);
        while (!expected.equals(text) && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(50);
            text = text(selector);
        }
        return text;
    }

    public void screenshot(Path file) throws IOException {
        JsonNode value = call("GET", base + "/session/" + session + "/screenshot", null).get("value");
        Files.createDirectories(file.getParent());
        Files.write(file, Base64.getDecoder().decode(value.asText()));
    }

    @Override
    public void close() throws InterruptedException {
        try {
            call("DELETE", base + "/session/" + session, null);
        } catch (IOException | RuntimeException e) {
            // the browser may be gone already; the driver is stopped below either way
        }
        driver.destroy();
        if (!driver.waitFor(10, TimeUnit.SECONDS)) {
            driver.destroyForcibly();
        }
    }

    private static JsonNode call(String method, String url, JsonNode body) throws IOException {
        HttpRequest.BodyPublisher publisher = body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body));
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").method(method, publisher).build();
        HttpResponse<String> response = Http.send(request);
        JsonNode answer = JSON.readTree(response.body());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("WebDriver " + method + " " + url + " answered " + response.statusCode()
                    + ": " + response.body());
        }
        return answer;
    }

    private static void awaitReady(String base) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> status = Http.send(HttpRequest.newBuilder(URI.create(base + "/status"))
                        .timeout(Duration.ofSeconds(2)).GET().build());
                if (status.statusCode() == 200 && JSON.readTree(status.body()).get("value").get("ready").asBoolean()) {
                    return;
                }
            } catch (IllegalStateException | IOException e) {
                // not listening yet
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
        throw new IllegalStateException("chromedriver did not become ready at " + base);
    }

    private static Path firstExisting(String... candidates) {
        for (String candidate : candidates) {
            Path path = Path.of(candidate);
            if (Files.isExecutable(path)) {
                return path;
            }
        }
        throw new IllegalStateException("Not installed: " + candidates[0]
                + " (apt-get install -y chromium chromium-driver; .ci/run does)");
    }
}
