package dev.llmratelimit.demo;

import dev.llmratelimit.testsupport.Http;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/** The demo's Prometheus text at /metrics and its open status page, after a known load. */
class ObservabilityTest {

    private static final String CHAT = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";

    private static HttpResponse<String> get(DemoFixture demo, String path) {
        return Http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + demo.port() + path)).GET().build());
    }

    @Test
    void metricsArePrometheusTextAndTheStatusPageIsOpen() throws Exception {
        try (DemoFixture demo = new DemoFixture()) {
            assertThat(demo.http().chat("sk-alice", CHAT).statusCode()).isEqualTo(200);
            assertThat(demo.http().chat("sk-alice", CHAT).statusCode()).isEqualTo(200);
            assertThat(demo.http().chat("sk-alice", CHAT).statusCode()).isEqualTo(429);   // 60 TPM, 30 a call

            HttpResponse<String> metrics = get(demo, "/metrics");
            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(Http.header(metrics, "Content-Type")).startsWith("text/plain;version=0.0.4");
            assertThat(metrics.body()).contains(
                    "# TYPE llm_ratelimit_decisions_total counter",
                    "llm_ratelimit_decisions_total{limit=\"none\",mode=\"generous\",model=\"gpt-4o-mini\","
                            + "otel_scope_name=\"dev.llmratelimit\",outcome=\"admitted\",pool=\"prod\",shadow=\"false\"} 1.0",
                    "llm_ratelimit_decisions_total{limit=\"none\",mode=\"strict\",model=\"gpt-4o-mini\","
                            + "otel_scope_name=\"dev.llmratelimit\",outcome=\"admitted\",pool=\"prod\",shadow=\"false\"} 1.0",
                    "llm_ratelimit_decisions_total{limit=\"model_tokens\",mode=\"strict\",model=\"gpt-4o-mini\","
                            + "otel_scope_name=\"dev.llmratelimit\",outcome=\"refused\",pool=\"prod\",shadow=\"false\"} 1.0",
                    "llm_ratelimit_tokens_total{model=\"gpt-4o-mini\",otel_scope_name=\"dev.llmratelimit\",pool=\"prod\",type=\"output\"} 40.0",
                    "service_name=\"llm-ratelimit-demo\"",
                    "llm_ratelimit_model_saturation_ratio{model=\"gpt-4o-mini\",otel_scope_name=\"dev.llmratelimit\"} 1.0",
                    "llm_ratelimit_pool_tokens{model=\"gpt-4o-mini\",otel_scope_name=\"dev.llmratelimit\",pool=\"prod\"} 60.0",
                    "llm_ratelimit_limit_used{dimension=\"tokens\",model=\"gpt-4o-mini\",otel_scope_name=\"dev.llmratelimit\",window=\"1m\"} 60.0",
                    "llm_ratelimit_limit_capacity{dimension=\"tokens\",model=\"gpt-4o-mini\",otel_scope_name=\"dev.llmratelimit\",window=\"1m\"} 60.0",
                    "llm_ratelimit_decision_duration_seconds_count{model=\"gpt-4o-mini\",otel_scope_name=\"dev.llmratelimit\",outcome=\"admitted\"} 2");

            HttpResponse<String> status = get(demo, "/llm-ratelimit/status.json");
            assertThat(status.statusCode()).isEqualTo(200);
            assertThat(status.body()).contains("\"origin\":\"the demo's configuration over ",
                    "\"name\":\"gpt-4o-mini\",\"rpm\":10,\"tpm\":60");
            assertThat(get(demo, "/llm-ratelimit/status").body()).contains("data-model=\"gpt-4o-mini\"");
        }
    }
}
