package dev.llmratelimit.observe;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.testsupport.Chromium;
import dev.llmratelimit.testsupport.FilterServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static dev.llmratelimit.testsupport.FilterServer.chat;
import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The status page in Debian's headless Chromium: its content read through the DOM, and its
 * figures moving while it stays open (no reload: a marker set in the page survives).
 */
class StatusPageBrowserTest {

    private static final Path TARGET = Path.of("target", "status-page");
    private static FilterServer server;
    private static Chromium browser;

    @BeforeAll
    static void start() throws Exception {
        Files.createDirectories(TARGET);
        server = new FilterServer(RateLimitRuntime.create(properties(
                "models.gpt-4o.rpm=10", "models.gpt-4o.tpm=1000", "models.\"gpt-4.1-mini\".tpm=5000",
                "reservation.prod=0.5", "principals.alice.priority=prod",
                "status.path=/llm-ratelimit/status", "status.public=true", "status.refresh=200ms"), null),
                Map.of("sk-alice", "alice", "sk-bob", "bob"), new UsageServlet(), "/v1/chat/completions");
        browser = Chromium.start(TARGET);
    }

    @AfterAll
    static void stop() throws Exception {
        if (browser != null) {
            browser.close();
        }
        server.close();
    }

    private static String model(String name, String field) {
        return "[data-model=\"" + name + "\"] [data-field=\"" + field + "\"]";
    }

    private static String pool(String model, String pool, String field) {
        return "[data-model=\"" + model + "\"] tr[data-pool=\"" + pool + "\"] [data-field=\"" + field + "\"]";
    }

    @Test
    void thePageShowsTheLimiterAndFollowsItLive() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(server.http().chat("sk-alice", chat("gpt-4o")).statusCode()).isEqualTo(200);
        }
        browser.open("http://127.0.0.1:" + server.port() + "/llm-ratelimit/status");

        assertThat(browser.execute("return document.title;").asText()).isEqualTo("llm-ratelimit status");
        assertThat(browser.execute("return document.querySelectorAll('section.model').length;").asInt()).isEqualTo(2);
        assertThat(browser.text(model("gpt-4o", "mode"))).isEqualTo("generous");
        assertThat(browser.text(model("gpt-4o", "saturation"))).isEqualTo("30.0 %");
        assertThat(browser.text(model("gpt-4o", "threshold"))).isEqualTo("50.0 %");
        assertThat(browser.text(model("gpt-4o", "requests"))).isEqualTo("3 / 10");
        assertThat(browser.text(model("gpt-4o", "tokens"))).isEqualTo("90 / 1000");
        assertThat(browser.text(pool("gpt-4o", "prod", "share"))).isEqualTo("50.0 %");
        assertThat(browser.text(pool("gpt-4o", "prod", "pool-requests"))).isEqualTo("3 / 5");
        assertThat(browser.text(pool("gpt-4o", "default", "pool-requests"))).isEqualTo("0 / 2");
        assertThat(browser.text(pool("gpt-4o", "default", "pool-tokens"))).isEqualTo("0 / 250");
        assertThat(browser.text(model("gpt-4.1-mini", "requests"))).isEqualTo("not limited");
        assertThat(browser.text(model("gpt-4.1-mini", "window-left"))).isEqualTo("no live window");
        assertThat(browser.text("[data-field=\"store-kind\"]")).isEqualTo("memory");
        assertThat(browser.text("[data-field=\"store-health\"]")).isEqualTo("healthy");
        assertThat(browser.text("[data-field=\"failures-decide\"]")).isEqualTo("0");
        assertThat(browser.text("[data-field=\"budgets\"]")).isEqualTo("No budget configured.");
        assertThat(browser.text("[data-field=\"origin\"]")).isEqualTo("properties given in code");
        String windowLeft = browser.text(model("gpt-4o", "window-left"));
        assertThat(windowLeft).matches("[1-6]?[0-9]\\.[0-9] s");
        browser.screenshot(TARGET.resolve("generous.png"));

        browser.execute("window.stillTheSamePage = true; return null;");
        for (int i = 0; i < 2; i++) {
            assertThat(server.http().chat("sk-bob", chat("gpt-4o")).statusCode()).isEqualTo(200);
        }
        assertThat(browser.awaitText(model("gpt-4o", "requests"), "5 / 10", Duration.ofSeconds(10))).isEqualTo("5 / 10");
        assertThat(browser.text(model("gpt-4o", "mode"))).isEqualTo("strict");
        assertThat(browser.text(model("gpt-4o", "saturation"))).isEqualTo("50.0 %");
        assertThat(browser.text(pool("gpt-4o", "default", "pool-requests"))).isEqualTo("2 / 2");
        assertThat(browser.execute("return window.stillTheSamePage === true;").asBoolean()).isTrue();
        browser.screenshot(TARGET.resolve("strict.png"));
        assertThat(Files.size(TARGET.resolve("strict.png"))).isGreaterThan(10_000);
    }
}
