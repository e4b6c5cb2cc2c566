package dev.llmratelimit.servlet;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.Http;
import dev.llmratelimit.testsupport.MutableClock;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/** Budgets through the filter in an embedded Tomcat over real HTTP: the answers of docs/budgets.md, exact to the micro-dollar. */
class BudgetFilterTest {

    private static final String MAX_20 = "{\"model\":\"plain\",\"max_tokens\":20,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";

    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-15T10:00:00Z").toEpochMilli());

    /** Where the budgets live: in the counter store (memory) here. */
    protected List<String> storeLines() {
        return List.of();
    }

    private FilterServer server(ScriptedChatServlet app, String... extra) throws Exception {
        List<String> all = new ArrayList<>(List.of("prices.plain.input=0",
                "prices.plain.output=500",                     // 500 micro-dollars per completion token
                "principals.alice.team=team-a", "principals.bob.budget=0"));
        all.addAll(List.of(extra));
        all.addAll(storeLines());
        String[] lines = all.toArray(String[]::new);
        RateLimitRuntime runtime = RateLimitRuntime.create(properties(lines), null, clock);
        return new FilterServer(runtime, Map.of("sk-alice", "alice", "sk-bob", "bob", "sk-zoe", "zoe"), app,
                "/v1/chat/completions");
    }

    @Test
    void everyAnswerCarriesTheBudgetAndTheRefusalNamesScopeSpendBudgetAndPeriodEnd() throws Exception {
        ScriptedChatServlet app = new ScriptedChatServlet();
        try (FilterServer server = server(app, "teams.team-a.budget=0.03")) {
            Http http = server.http();
            String[] remaining = new String[3];
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> admitted = http.post("/v1/chat/completions", "sk-alice", MAX_20);
                assertThat(admitted.statusCode()).isEqualTo(200);
                assertThat(Http.header(admitted, "x-ratelimit-limit-budget")).isEqualTo("0.0300");
                remaining[i] = Http.header(admitted, "x-ratelimit-remaining-budget");
            }
            // each call reserves its worst case, 20 x 500 = 10,000 micro-dollars, and settles at 20 completion tokens
            assertThat(remaining).containsExactly("0.0200", "0.0100", "0.0000");
            HttpResponse<String> refused = http.post("/v1/chat/completions", "sk-alice", MAX_20);
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.body()).isEqualTo("{\"error\":{\"message\":\"Budget exceeded for team team-a: spent $0.0300"
                    + " of $0.0300 in the period ending 2027-01-01T00:00:00Z\",\"type\":\"budget_exceeded\",\"param\":null,"
                    + "\"code\":\"429\"}}");
            assertThat(Http.header(refused, "retry-after")).isEqualTo(Long.toString(16 * 86400 + 14 * 3600));
            assertThat(Http.header(refused, "x-ratelimit-remaining-budget")).isEqualTo("0.0000");
            assertThat(app.calls.get()).isEqualTo(3);
            clock.advance(Duration.ofDays(17));                                   // January: a new period
            assertThat(http.post("/v1/chat/completions", "sk-alice", MAX_20).statusCode()).isEqualTo(200);
            // no budget for zoe: untouched, no budget headers
            HttpResponse<String> unbudgeted = http.post("/v1/chat/completions", "sk-zoe", MAX_20);
            assertThat(unbudgeted.statusCode()).isEqualTo(200);
            assertThat(Http.header(unbudgeted, "x-ratelimit-limit-budget")).isNull();
        }
    }

    @Test
    void anUnpricedModelIsRefusedWith400AndAZeroBudgetRefusesNamingTheKeyAsConfigured() throws Exception {
        ScriptedChatServlet app = new ScriptedChatServlet();
        try (FilterServer server = server(app, "teams.team-a.budget=100")) {
            Http http = server.http();
            HttpResponse<String> unpriced = http.post("/v1/chat/completions", "sk-alice", FilterServer.chat("gpt-unpriced"));
            assertThat(unpriced.statusCode()).isEqualTo(400);
            assertThat(unpriced.body()).isEqualTo("{\"error\":{\"message\":\"Model gpt-unpriced has no price, so the budget"
                    + " that applies to this request cannot be enforced; the request is refused rather than treated as free\","
                    + "\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"model_price_unknown\"}}");
            HttpResponse<String> zero = http.post("/v1/chat/completions", "sk-bob", MAX_20);
            assertThat(zero.statusCode()).isEqualTo(429);
            assertThat(zero.body()).contains("Budget exceeded for key bob: spent $0.0000 of $0.0000 in the period"
                    + " ending 2027-01-01T00:00:00Z");
            assertThat(app.calls.get()).isZero();
        }
    }

    @Test
    void shadowModeReportsTheBudgetRefusalAndLetsTheCallThrough() throws Exception {
        ScriptedChatServlet app = new ScriptedChatServlet();
        try (FilterServer server = server(app, "teams.team-a.budget=0.01", "mode=shadow")) {
            Http http = server.http();
            assertThat(http.post("/v1/chat/completions", "sk-alice", MAX_20).statusCode()).isEqualTo(200);
            HttpResponse<String> over = http.post("/v1/chat/completions", "sk-alice", MAX_20);
            assertThat(over.statusCode()).isEqualTo(200);
            assertThat(Http.header(over, "x-ratelimit-shadow-decision")).isEqualTo("refused; limit=team-budget; retry-after="
                    + (16 * 86400 + 14 * 3600));
            assertThat(app.calls.get()).isEqualTo(2);
        }
    }

    /**
     * A call without max_tokens reserves the most output it may produce: when that worst case does not
     * fit, the answer says so, says what it was and what is left, and max_tokens gets the call through.
     * A key whose budget comes only from the defaults is named by its hash (its name may be the API key).
     */
    @Test
    void aWorstCaseThatDoesNotFitSaysSoAndWhatIsLeft() throws Exception {
        ScriptedChatServlet app = new ScriptedChatServlet();
        try (FilterServer server = server(app, "teams.team-a.budget=0.01")) {
            Http http = server.http();
            HttpResponse<String> refused = http.post("/v1/chat/completions", "sk-alice", FilterServer.chat("plain"));
            assertThat(refused.statusCode()).isEqualTo(429);
            // budget.max-output-tokens 4096 x 500 micro-dollars: $2.048
            assertThat(refused.body()).isEqualTo("{\"error\":{\"message\":\"Budget exceeded for team team-a: this call may"
                    + " cost up to $2.0480 (its prompt and the most output it may produce), more than the $0.0100 left of"
                    + " $0.0100 in the period ending 2027-01-01T00:00:00Z (spent $0.0000). Send max_tokens, or a lower one,"
                    + " to lower the call's worst case\",\"type\":\"budget_exceeded\",\"param\":null,\"code\":\"429\"}}");
            assertThat(Http.header(refused, "x-ratelimit-limit-budget")).isEqualTo("0.0100");
            assertThat(Http.header(refused, "x-ratelimit-remaining-budget")).isEqualTo("0.0100");
            assertThat(http.post("/v1/chat/completions", "sk-alice", MAX_20).statusCode()).isEqualTo(200);
        }
        try (FilterServer server = server(app, "defaults.key.budget=0")) {
            HttpResponse<String> zoe = server.http().post("/v1/chat/completions", "sk-zoe", MAX_20);
            assertThat(zoe.statusCode()).isEqualTo(429);
            assertThat(zoe.body()).contains("Budget exceeded for key sha256:" + sha12("zoe") + ": spent $0.0000 of $0.0000")
                    .doesNotContain("zoe");
            assertThat(app.calls.get()).isEqualTo(1);
        }
    }

    private static String sha12(String text) throws Exception {
        byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return java.util.HexFormat.of().formatHex(digest, 0, 6);
    }
}
