package dev.llmratelimit.demo;

import dev.llmratelimit.testsupport.Http;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The worked example of docs/fairness.md on the demo (answers of 30 tokens, 300 TPM, team_a and
 * team_b half each, threshold 0.5): alone, alice's team is served the whole model under
 * {@code work-conserving} and half of it under {@code saturation}.
 */
class FairnessThroughDemoTest {

    private static final String CHAT = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";

    private static DemoFixture demo(String fairness) throws Exception {
        return DemoFixture.withConfig("llm.ratelimit.models.gpt-4o-mini.tpm=300", "llm.ratelimit.window=60s",
                "llm.ratelimit.reservation.team_a=0.5", "llm.ratelimit.reservation.team_b=0.5",
                "llm.ratelimit.saturation-threshold=0.5", "llm.ratelimit.fairness=" + fairness,
                "demo.keys.sk-alice=alice", "demo.keys.sk-bob=bob",
                "llm.ratelimit.principals.alice.priority=team_a", "llm.ratelimit.principals.bob.priority=team_b",
                "llm.ratelimit.status.path=/llm-ratelimit/status", "llm.ratelimit.status.public=true");
    }

    private static int servedUntilRefused(DemoFixture demo, String key) {
        for (int served = 0; served < 100; served++) {
            if (demo.http().chat(key, CHAT).statusCode() != 200) {
                return served;
            }
        }
        return 100;
    }

    @Test
    void workConservingServesALoneTeamTheWholeModel() throws Exception {
        try (DemoFixture demo = demo("work-conserving")) {
            assertThat(servedUntilRefused(demo, "sk-alice")).isEqualTo(10);         // 300 tokens

            HttpResponse<String> bob = demo.http().chat("sk-bob", CHAT);
            assertThat(bob.statusCode()).isEqualTo(429);
            assertThat(bob.body()).contains("Model capacity reached for gpt-4o-mini. Priority: team_b,"
                    + " active priorities: team_a, team_b, share now: 50.0%, Rate limit type: tokens");
            assertThat(Http.header(bob, "x-ratelimit-priority")).isEqualTo("team_b");
        }
    }

    @Test
    void saturationHoldsALoneTeamToHalfTheModel() throws Exception {
        try (DemoFixture demo = demo("saturation")) {
            assertThat(servedUntilRefused(demo, "sk-alice")).isEqualTo(5);          // 150 tokens
        }
    }
}
