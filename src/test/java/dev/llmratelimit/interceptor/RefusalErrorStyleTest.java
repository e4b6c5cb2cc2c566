package dev.llmratelimit.interceptor;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.http.ErrorStyle;
import dev.llmratelimit.interceptor.jaxrs.RateLimitExceptionMapper;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.MutableClock;
import jakarta.ws.rs.core.Response;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import static dev.llmratelimit.testsupport.Admits.admit;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code llm.ratelimit.error-style} in the interceptor: the exception's answer and the JAX-RS mapper's
 * response carry the same 429 as the filter's, in either style (model {@code m}: 1 request per 60 s).
 */
class RefusalErrorStyleTest {

    private static Admission refusedAfter(Duration wait) {
        MutableClock clock = new MutableClock();
        RateLimiter limiter = new RateLimiter(PolicyParser.parse(Map.of("llm.ratelimit.models.m.rpm", "1")),
                new MemoryAdmissionStore(clock));
        assertThat(admit(limiter, "m", null).permitsCall()).isTrue();
        clock.advance(wait);
        Admission refused = admit(limiter, "m", null);
        assertThat(refused.outcome()).isEqualTo(Admission.Outcome.REFUSED);
        return refused;
    }

    private static String body(Response response) {
        return new String((byte[]) response.getEntity(), StandardCharsets.UTF_8);
    }

    @Test
    void openAiStyleThroughTheExceptionMapper() {
        RateLimitRefusalException refusal = RateLimitRefusalException.of(refusedAfter(Duration.ofSeconds(15)), ErrorStyle.OPENAI);
        Response response = new RateLimitExceptionMapper().toResponse(refusal);

        assertThat(refusal).isInstanceOf(RateLimitExceededException.class);
        assertThat(response.getStatus()).isEqualTo(429);
        assertThat(body(response)).isEqualTo("{\"error\":{\"message\":\"Model capacity reached for m. Priority: default, "
                + "Rate limit type: requests, Model TPM: not configured, Model RPM: 1, Remaining: 0. "
                + "Please try again in 45s.\",\"type\":\"requests\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}");
        assertThat(response.getHeaderString("retry-after")).isEqualTo("45");
        assertThat(response.getHeaderString("x-ratelimit-reset-requests")).isEqualTo("45s");
        assertThat(refusal.getMessage()).endsWith("Please try again in 45s.");
    }

    @Test
    void liteLlmStyleThroughTheExceptionMapper() {
        Response response = new RateLimitExceptionMapper().toResponse(
                RateLimitRefusalException.of(refusedAfter(Duration.ofMillis(59_250)), ErrorStyle.LITELLM));

        assertThat(body(response)).isEqualTo("{\"error\":{\"message\":\"Model capacity reached for m. Priority: default, "
                + "Rate limit type: requests, Model TPM: not configured, Model RPM: 1, Remaining: 0\","
                + "\"type\":\"throttling_error\",\"param\":null,\"code\":\"429\"}}");
        assertThat(response.getHeaderString("retry-after")).isEqualTo("1");
        assertThat(response.getHeaderString("x-ratelimit-reset-requests")).isEqualTo("750ms");
    }
}
