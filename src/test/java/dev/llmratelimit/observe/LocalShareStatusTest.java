package dev.llmratelimit.observe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.llmratelimit.config.ConfigurationLoader;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.observe.otel.OpenTelemetryTelemetry;
import dev.llmratelimit.testsupport.Policies;
import dev.llmratelimit.testsupport.RedisServer;
import dev.llmratelimit.usage.Usage;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.time.Clock;
import java.time.Duration;

import static dev.llmratelimit.testsupport.Admits.admit;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code on-store-failure=local} and a real redis-server killed, the decisions made on the
 * instance's share are counted in metrics and on the status page's store card.
 */
class LocalShareStatusTest {

    private final InMemoryMetricReader reader = InMemoryMetricReader.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build()).build();

    @Test
    void decisionsOnTheLocalShareAreCountedOnThePageAndInMetrics() throws Exception {
        try (RedisServer redis = RedisServer.startNew();
             RateLimitRuntime runtime = RateLimitRuntime.create(ConfigurationLoader.of("test", () -> Policies.properties(
                     "models.m.rpm=100", "store=redis", "redis.address=" + redis.address(), "redis.timeout=300ms",
                     "store-failure-threshold=1", "store-backoff=60s", "on-store-failure=local")), null,
                     Clock.systemUTC(), OpenTelemetryTelemetry.of(sdk))) {
            admit(runtime.limiter(), "m", null).complete(new Usage(1, 1, 0));
            assertThat(runtime.status().read().store().localDecisions()).isZero();

            redis.crash();
            for (int i = 0; i < 7; i++) {
                Admission admission = admit(runtime.limiter(), "m", null);
                assertThat(admission.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
                admission.complete(new Usage(1, 1, 0));
            }

            StatusReport report = runtime.status().read();
            assertThat(report.store().localDecisions()).isEqualTo(7);
            ByteArrayOutputStream json = new ByteArrayOutputStream();
            StatusJson.write(report, json);
            JsonNode store = new ObjectMapper().readTree(json.toByteArray()).get("store");
            assertThat(store.get("local_decisions").asLong()).isEqualTo(7);
            assertThat(StatusHtml.render(report, Duration.ofSeconds(5)))
                    .contains("<dt>decided on the local share</dt><dd class=\"num\" data-field=\"local-decisions\">7</dd>");
            assertThat(MetricPoints.collect(reader).longValue("llm_ratelimit.store.local_decisions", Attributes.empty()))
                    .isEqualTo(7);
        }
    }

    @Test
    void withoutTheLocalShareThePageSaysNothingOfIt() throws Exception {
        try (RateLimitRuntime runtime = RateLimitRuntime.create(Policies.properties("models.m.rpm=100"), null)) {
            StatusReport report = runtime.status().read();
            assertThat(report.store().localDecisions()).isNull();
            ByteArrayOutputStream json = new ByteArrayOutputStream();
            StatusJson.write(report, json);
            assertThat(new ObjectMapper().readTree(json.toByteArray()).get("store").get("local_decisions").isNull()).isTrue();
            assertThat(StatusHtml.render(report, Duration.ofSeconds(5))).doesNotContain("local-decisions");
        }
    }
}
