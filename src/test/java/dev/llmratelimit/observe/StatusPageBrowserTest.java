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
                "models.\"gpt-4.1-mini\".reservation.prod=0.9",
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

        // bob's default pool is full in strict mode: his next call is refused, and the page says who refuses and why
        assertThat(server.http().chat("sk-bob", chat("gpt-4o")).statusCode()).isEqualTo(429);
        assertThat(browser.awaitText(model("gpt-4o", "refused-recently"), "1 by pool requests", Duration.ofSeconds(10)))
                .isEqualTo("1 by pool requests");
        assertThat(browser.text(pool("gpt-4o", "default", "pool-refusing"))).isEqualTo("refusing");
        assertThat(browser.text(pool("gpt-4o", "default", "pool-use"))).isEqualTo("100.0 %");
        assertThat(browser.text(pool("gpt-4o", "prod", "pool-use"))).isEqualTo("60.0 %");
        assertThat(browser.execute("return document.querySelectorAll('[data-model=\"gpt-4o\"] tr.refusing').length;").asInt())
                .isEqualTo(1);
        assertThat(browser.text(model("gpt-4o", "history-admitted"))).isEqualTo("5");
        assertThat(browser.text(model("gpt-4o", "history-refused"))).isEqualTo("1");
        assertThat(browser.execute("return document.querySelectorAll('[data-model=\"gpt-4o\"] svg.history rect[fill=\"#d9534f\"]').length;")
                .asInt()).isEqualTo(1);
        assertThat(browser.execute("return document.querySelector('[data-model=\"gpt-4o\"] svg.history')"
                + ".getBoundingClientRect().width > 300;").asBoolean()).isTrue();
        assertThat(browser.text(model("gpt-4.1-mini", "shares-note"))).startsWith("Shares add up to 115.0 %: the reservations");
        assertThat(browser.execute("return document.querySelector('[data-model=\"gpt-4o\"] [data-field=\"shares-note\"]') === null;")
                .asBoolean()).isTrue();
        assertThat(browser.text("[data-field=\"generated-at\"]")).matches("20[0-9]{2}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} UTC");
        browser.execute("document.querySelector('[data-model=\"gpt-4o\"]').scrollIntoView(); return null;");
        browser.screenshot(TARGET.resolve("refusing.png"));
    }

    /** The budgets card in the browser: each named budget with its spend, what is left and when it resets. */
    @Test
    void theBudgetsCardShowsEachNamedBudget() throws Exception {
        try (FilterServer budgeted = new FilterServer(RateLimitRuntime.create(properties(
                "models.gpt-4o.rpm=10", "prices.gpt-4o.input=0", "prices.gpt-4o.output=500",
                "principals.alice.budget=0.05", "principals.bob.budget=0.01", "principals.bob.team=research",
                "teams.research.soft-budget=1", "status.path=/llm-ratelimit/status", "status.public=true"), null),
                Map.of("sk-alice", "alice", "sk-bob", "bob"), new UsageServlet(), "/v1/chat/completions")) {
            String call = "{\"model\":\"gpt-4o\",\"max_tokens\":20,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
            assertThat(budgeted.http().post("/v1/chat/completions", "sk-alice", call).statusCode()).isEqualTo(200);
            assertThat(budgeted.http().post("/v1/chat/completions", "sk-bob", call).statusCode()).isEqualTo(200);
            assertThat(budgeted.http().post("/v1/chat/completions", "sk-bob", call).statusCode()).isEqualTo(429);
            browser.open("http://127.0.0.1:" + budgeted.port() + "/llm-ratelimit/status");

            String alice = "tr[data-budget=\"key alice\"] ";
            String bob = "tr[data-budget=\"key bob\"] ";
            assertThat(browser.text(alice + "[data-field=\"budget-spent\"]")).isEqualTo("$0.010000");
            assertThat(browser.text(alice + "[data-field=\"budget-left\"]")).isEqualTo("$0.040000");
            assertThat(browser.text(bob + "[data-field=\"budget-left\"]")).isEqualTo("$0.000000");
            assertThat(browser.execute("return document.querySelector('tr[data-budget=\"key bob\"]').className;").asText())
                    .isEqualTo("refusing");
            assertThat(browser.text("tr[data-budget=\"team research\"] [data-field=\"budget-limit\"]")).isEqualTo("none (soft $1.000000)");
            assertThat(browser.text(alice + "[data-field=\"budget-resets-in\"]")).matches("[0-9]+ d [0-9]+ h|[0-9]+ h [0-9]+ min");
            browser.execute("document.querySelector('#budgets').scrollIntoView(); return null;");
            browser.screenshot(TARGET.resolve("budgets.png"));
        }
    }
}
