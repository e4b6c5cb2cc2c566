package dev.llmratelimit.samples.springboot;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;
import org.springframework.test.annotation.DirtiesContext;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/** The quick start from application.yml: 60 tokens a minute, 30 an answer: two served, the third refused. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class QuickStartTest {

    @Autowired
    Environment environment;

    @Test
    void twoServedThenTheFiltersRefusal() throws Exception {
        Calls calls = Calls.to(environment);
        HttpResponse<String> first = calls.chat("alice", "gpt-4o-mini");
        HttpResponse<String> second = calls.chat("alice", "gpt-4o-mini");
        HttpResponse<String> third = calls.chat("alice", "gpt-4o-mini");

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).contains("\"total_tokens\":30");
        assertThat(first.headers().firstValue("x-ratelimit-limit-tokens")).hasValue("60");
        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(third.statusCode()).isEqualTo(429);
        assertThat(third.headers().firstValue("content-type")).hasValue("application/json;charset=UTF-8");
        assertThat(third.headers().firstValue("x-ratelimit-priority")).hasValue("prod");
        assertThat(third.headers().firstValue("x-ratelimit-remaining-tokens")).hasValue("0");
        assertThat(Long.parseLong(third.headers().firstValue("retry-after").orElseThrow())).isBetween(1L, 60L);
        assertThat(third.body()).isEqualTo("{\"error\":{\"message\":\"Model capacity reached for gpt-4o-mini. Priority: prod,"
                + " Rate limit type: tokens, Model TPM: 60, Model RPM: 10, Remaining: 0\",\"type\":\"throttling_error\","
                + "\"param\":null,\"code\":\"429\"}}");
    }
}
