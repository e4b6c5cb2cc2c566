package dev.llmratelimit.samples.springboot;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;
import org.springframework.test.annotation.DirtiesContext;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @RateLimited} on a service method behind an endpoint the filter does not limit: the call's
 * returned usage (30 tokens) counts, the third call is refused, and the controller advice answers it
 * with the filter's 429.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class RateLimitedServiceTest {

    @Autowired
    Environment environment;

    @Autowired
    SummaryService summaries;

    @Test
    void serviceCallsAreLimitedAndRefusedWithTheFiltersAnswer() throws Exception {
        Calls calls = Calls.to(environment);
        HttpResponse<String> first = calls.post("alice", "/summaries?model=gpt-4o-mini", "some text");
        HttpResponse<String> second = calls.post("alice", "/summaries?model=gpt-4o-mini", "some text");
        HttpResponse<String> third = calls.post("alice", "/summaries?model=gpt-4o-mini", "some text");

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).contains("\"summary\":\"9 characters\"");
        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(third.statusCode()).isEqualTo(429);
        assertThat(third.headers().firstValue("content-type")).hasValue("application/json;charset=UTF-8");
        assertThat(third.headers().firstValue("x-ratelimit-priority")).hasValue("prod");
        assertThat(third.headers().firstValue("retry-after")).isPresent();
        assertThat(third.body()).isEqualTo("{\"error\":{\"message\":\"Model capacity reached for gpt-4o-mini. Priority: prod,"
                + " Rate limit type: tokens, Model TPM: 60, Model RPM: 10, Remaining: 0\",\"type\":\"throttling_error\","
                + "\"param\":null,\"code\":\"429\"}}");
    }
}
