package dev.llmratelimit.samples.springboot;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;
import org.springframework.test.annotation.DirtiesContext;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The limiter's meters in the application's Micrometer registry: after two calls served and one refused,
 * /actuator/prometheus and /actuator/metrics count them.
 */
// Spring Boot 3.5's test support switches metrics export off unless asked: the Prometheus registry is asked for
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "management.prometheus.metrics.export.enabled=true")
@DirtiesContext
class ActuatorMetricsTest {

    @Autowired
    Environment environment;

    @Test
    void theDecisionCountersCountTwoAdmittedAndOneRefused() throws Exception {
        Calls calls = Calls.to(environment);
        for (int call = 0; call < 3; call++) {
            calls.chat("alice", "gpt-4o-mini");
        }

        List<String> decisions = Arrays.stream(calls.get("/actuator/prometheus").body().split("\n"))
                .filter(line -> line.startsWith("llm_ratelimit_decisions_total{")).sorted().toList();
        // the second call comes at saturation 30 / 60 tokens, the threshold: admitted in strict mode
        assertThat(decisions).containsExactly(
                "llm_ratelimit_decisions_total{limit=\"model_tokens\",mode=\"strict\",model=\"gpt-4o-mini\",outcome=\"refused\",pool=\"prod\",shadow=\"false\"} 1.0",
                "llm_ratelimit_decisions_total{limit=\"none\",mode=\"generous\",model=\"gpt-4o-mini\",outcome=\"admitted\",pool=\"prod\",shadow=\"false\"} 1.0",
                "llm_ratelimit_decisions_total{limit=\"none\",mode=\"strict\",model=\"gpt-4o-mini\",outcome=\"admitted\",pool=\"prod\",shadow=\"false\"} 1.0");

        String admitted = calls.get("/actuator/metrics/llm_ratelimit.decisions?tag=outcome:admitted&tag=model:gpt-4o-mini").body();
        assertThat(admitted).contains("\"name\":\"llm_ratelimit.decisions\"").contains("{\"statistic\":\"COUNT\",\"value\":2.0}");
        String tokens = calls.get("/actuator/metrics/llm_ratelimit.tokens?tag=model:gpt-4o-mini&tag=pool:prod").body();
        assertThat(tokens).contains("{\"statistic\":\"COUNT\",\"value\":60.0}");
    }
}
