package dev.llmratelimit.samples.springboot;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;
import org.springframework.test.annotation.DirtiesContext;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Priorities from Spring Security's users (authority {@code llm.priority:<name>}): with 120 tokens a
 * minute the model is half used after alice's two answers (saturation 0.5); from then on bob's {@code dev}
 * pool (10 %: 12 tokens) refuses him once he used it, while alice's {@code prod} pool (90 %: 108 tokens)
 * still serves her.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "llm.ratelimit.models.gpt-4o-mini.tpm=120")
@DirtiesContext
class PrioritiesTest {

    @Autowired
    Environment environment;

    @Test
    void devIsRefusedAboveSaturationWhileProdIsServed() throws Exception {
        Calls calls = Calls.to(environment);
        assertThat(calls.chat("alice", "gpt-4o-mini").statusCode()).isEqualTo(200);
        assertThat(calls.chat("alice", "gpt-4o-mini").statusCode()).isEqualTo(200);
        assertThat(calls.chat("bob", "gpt-4o-mini").statusCode()).isEqualTo(200);

        HttpResponse<String> bob = calls.chat("bob", "gpt-4o-mini");
        HttpResponse<String> alice = calls.chat("alice", "gpt-4o-mini");

        assertThat(bob.statusCode()).isEqualTo(429);
        assertThat(bob.headers().firstValue("x-ratelimit-priority")).hasValue("dev");
        assertThat(alice.statusCode()).isEqualTo(200);
    }

    @Test
    void unauthenticatedCallsNeverReachTheLimiter() throws Exception {
        assertThat(Calls.to(environment).get("/v1/chat/completions").statusCode()).isEqualTo(401);
    }
}
