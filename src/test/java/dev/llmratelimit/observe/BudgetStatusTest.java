package dev.llmratelimit.observe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.llmratelimit.config.ConfigurationLoader;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.observe.otel.OpenTelemetryTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.Http;
import dev.llmratelimit.testsupport.MutableClock;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static dev.llmratelimit.observe.MetricPoints.attributes;
import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The status page's budgets, read from the store that keeps them (memory here; Redis and the
 * budget database in the subclasses): spent after settled calls, reserved while a call runs, each
 * budget by its configured name, period and time to reset, and the budget gauges.
 */
class BudgetStatusTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** 20 completion tokens at 500 micro-dollars each: 10,000 per call; its worst case (max_tokens 30) is 15,000. */
    private static final String CALL = "{\"model\":\"gpt-4o\",\"max_tokens\":30,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";

    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-15T10:00:00Z").toEpochMilli());

    /** Where the budgets live: in the counter store (memory) here. */
    protected List<String> storeLines() {
        return List.of();
    }

    /** A chat endpoint that answers 10 prompt and 20 completion tokens, and holds calls while {@link #hold} is closed. */
    static final class HoldingServlet extends HttpServlet {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch hold = new CountDownLatch(1);
        volatile boolean holding;

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            request.getInputStream().readAllBytes();
            if (holding) {
                entered.countDown();
                try {
                    hold.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            response.setContentType("application/json");
            response.getOutputStream().write(("{\"id\":\"1\",\"object\":\"chat.completion\",\"choices\":[],"
                    + "\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":20,\"total_tokens\":30}}")
                    .getBytes(StandardCharsets.UTF_8));
        }
    }

    private FilterServer server(HoldingServlet app) throws Exception {
        return server(app, Telemetry.NONE);
    }

    private FilterServer server(HoldingServlet app, Telemetry telemetry) throws Exception {
        List<String> lines = new ArrayList<>(List.of("models.gpt-4o.rpm=100", "prices.gpt-4o.input=0", "prices.gpt-4o.output=500",
                "principals.alice.budget=0.05", "principals.alice.budgets.gpt-4o=0.04", "principals.alice.team=research",
                "teams.research.soft-budget=1", "status.path=/status", "status.public=true"));
        lines.addAll(storeLines());
        Map<String, String> properties = properties(lines.toArray(String[]::new));
        return new FilterServer(RateLimitRuntime.create(ConfigurationLoader.fixed(properties), null, clock, telemetry),
                Map.of("sk-alice", "alice"), app, "/v1/chat/completions");
    }

    private static JsonNode status(FilterServer server) throws IOException {
        HttpResponse<String> response = Http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.port() + "/status.json")).GET().build());
        assertThat(response.statusCode()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    @Test
    void everyConfiguredBudgetShowsSpentReservedLimitLeftAndItsPeriod() throws Exception {
        HoldingServlet app = new HoldingServlet();
        try (FilterServer server = server(app)) {
            for (int i = 0; i < 2; i++) {
                assertThat(server.http().post("/v1/chat/completions", "sk-alice", CALL).statusCode()).isEqualTo(200);
            }
            app.holding = true;
            CompletableFuture<HttpResponse<String>> running = CompletableFuture.supplyAsync(
                    () -> server.http().post("/v1/chat/completions", "sk-alice", CALL));
            assertThat(app.entered.await(10, TimeUnit.SECONDS)).isTrue();

            JsonNode budgets = status(server).get("budgets");

            assertThat(budgets).hasSize(3);
            assertBudget(budgets.get(0), "key", "alice", null, 50_000, -1, 20_000, 15_000, 15_000);
            assertBudget(budgets.get(1), "key", "alice", "gpt-4o", 40_000, -1, 20_000, 15_000, 5_000);
            assertBudget(budgets.get(2), "team", "research", null, -1, 1_000_000, 20_000, 15_000, -1);
            for (JsonNode budget : budgets) {
                assertThat(budget.get("period_start").asText()).isEqualTo("2026-12-01T00:00:00Z");
                assertThat(budget.get("period_end").asText()).isEqualTo("2027-01-01T00:00:00Z");
                assertThat(budget.get("resets_in_ms").asLong()).isEqualTo(16 * 86_400_000L + 14 * 3_600_000L);
            }

            app.hold.countDown();
            assertThat(running.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            JsonNode settled = status(server).get("budgets");
            assertBudget(settled.get(0), "key", "alice", null, 50_000, -1, 30_000, 0, 20_000);
            assertBudget(settled.get(1), "key", "alice", "gpt-4o", 40_000, -1, 30_000, 0, 10_000);
        }
    }

    @Test
    void thePageShowsEachBudgetByItsConfiguredNameWithReadableTimes() throws Exception {
        HoldingServlet app = new HoldingServlet();
        try (FilterServer server = server(app)) {
            assertThat(server.http().post("/v1/chat/completions", "sk-alice", CALL).statusCode()).isEqualTo(200);

            String page = Http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/status"))
                    .GET().build()).body();

            assertThat(page).contains("<tr data-budget=\"key alice\"><td data-field=\"budget-scope\">key</td>"
                    + "<td data-field=\"budget-name\">alice</td><td data-field=\"budget-model\">all</td>")
                    .contains("<td class=\"num\" data-field=\"budget-spent\">$0.010000</td>")
                    .contains("<td class=\"num\" data-field=\"budget-left\">$0.040000</td>")
                    .contains("<td data-field=\"budget-period\">2026-12-01 00:00:00 UTC to 2027-01-01 00:00:00 UTC</td>")
                    .contains("<td data-field=\"budget-resets-in\">16 d 14 h</td>")
                    .contains("$1.000000)");
        }
    }

    /** Limits and spend summed per scope kind and model: no key, user or team name becomes a label. */
    @Test
    void theBudgetGaugesShowLimitAndSpentPerScopeKindAndModel() throws Exception {
        InMemoryMetricReader reader = InMemoryMetricReader.create();
        try (OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
                .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build()).build();
             FilterServer server = server(new HoldingServlet(), OpenTelemetryTelemetry.of(sdk))) {
            for (int i = 0; i < 2; i++) {
                assertThat(server.http().post("/v1/chat/completions", "sk-alice", CALL).statusCode()).isEqualTo(200);
            }

            MetricPoints points = MetricPoints.collect(reader);

            assertThat(points.longValue("llm_ratelimit.budget.limit", attributes("scope", "key", "model", "all"))).isEqualTo(50_000);
            assertThat(points.longValue("llm_ratelimit.budget.limit", attributes("scope", "key", "model", "gpt-4o"))).isEqualTo(40_000);
            assertThat(points.longValue("llm_ratelimit.budget.limit", attributes("scope", "team", "model", "all"))).isZero();
            assertThat(points.longValue("llm_ratelimit.budget.spent", attributes("scope", "key", "model", "all"))).isEqualTo(20_000);
            assertThat(points.longValue("llm_ratelimit.budget.spent", attributes("scope", "key", "model", "gpt-4o"))).isEqualTo(20_000);
            assertThat(points.longValue("llm_ratelimit.budget.spent", attributes("scope", "team", "model", "all"))).isEqualTo(20_000);
            assertThat(points.pointCount("llm_ratelimit.budget.spent")).isEqualTo(3);
        }
    }

    private static void assertBudget(JsonNode budget, String scope, String name, String model, long limit, long soft,
                                     long spent, long reserved, long left) {
        assertThat(budget.get("scope").asText()).isEqualTo(scope);
        assertThat(budget.get("name").asText()).isEqualTo(name);
        assertThat(budget.get("model").isNull() ? null : budget.get("model").asText()).isEqualTo(model);
        assertThat(budget.get("limit_micros").asLong()).isEqualTo(limit);
        assertThat(budget.get("soft_micros").asLong()).isEqualTo(soft);
        assertThat(budget.get("spent_micros").asLong()).isEqualTo(spent);
        assertThat(budget.get("reserved_micros").asLong()).isEqualTo(reserved);
        assertThat(budget.get("left_micros").asLong()).isEqualTo(left);
    }
}
