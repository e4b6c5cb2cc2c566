package dev.llmratelimit.policy;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class InsteadOfRefusalParserTest {

    private static FallbackPolicy fallbacks(String... lines) {
        Map<String, String> properties = properties(lines);
        return InsteadOfRefusalParser.fallbacks(properties, PolicyParser.parse(properties));
    }

    private static WaitPolicy waiting(String... lines) {
        Map<String, String> properties = properties(lines);
        return InsteadOfRefusalParser.waiting(properties, PolicyParser.parse(properties));
    }

    @Test
    void aChainPerModelAndOnePerPriority() {
        FallbackPolicy policy = fallbacks("models.a.rpm=1", "models.b.rpm=1", "models.\"c.1\".rpm=1",
                "models.a.fallbacks=b, c.1", "models.a.fallbacks.prod=c.1", "reservation.prod=0.5");
        assertThat(policy.chain("a", "dev")).containsExactly("b", "c.1");
        assertThat(policy.chain("a", "default")).containsExactly("b", "c.1");
        assertThat(policy.chain("a", "prod")).containsExactly("c.1");
        assertThat(policy.chain("b", "prod")).isEmpty();
        assertThat(policy.chain("unknown", "prod")).isEmpty();
    }

    @Test
    void aFallbackMustBeAConfiguredModel() {
        assertThatThrownBy(() -> fallbacks("models.a.rpm=1", "models.a.fallbacks=b"))
                .hasMessage("Invalid configuration llm.ratelimit.models.a.fallbacks=b: "
                        + "fallback model 'b' is not configured (it needs an rpm or tpm)");
    }

    @Test
    void noCyclesNoRepeats() {
        assertThatThrownBy(() -> fallbacks("models.a.rpm=1", "models.b.rpm=1", "models.a.fallbacks=b,a"))
                .hasMessage("Invalid configuration llm.ratelimit.models.a.fallbacks=b,a: "
                        + "a model cannot be its own fallback (a cycle)");
        assertThatThrownBy(() -> fallbacks("models.a.rpm=1", "models.b.rpm=1", "models.a.fallbacks=b,b"))
                .hasMessage("Invalid configuration llm.ratelimit.models.a.fallbacks=b,b: "
                        + "a fallback chain names a model twice");
    }

    @Test
    void theModelOfAChainMustBeLimitedToo() {
        assertThatThrownBy(() -> fallbacks("models.b.rpm=1", "models.a.fallbacks=b"))
                .hasMessage("Invalid configuration llm.ratelimit.models.a.fallbacks=b: model 'a' has no rpm or tpm configured");
    }

    @Test
    void theMostSpecificWaitWins() {
        WaitPolicy policy = waiting("models.a.rpm=1", "models.b.rpm=1", "max-wait=1s", "max-wait.dev=2s",
                "models.a.max-wait=3s", "models.a.max-wait.dev=4s", "reservation.dev=0.5");
        assertThat(policy.maxWait("a", "dev")).isEqualTo(Duration.ofSeconds(4));
        assertThat(policy.maxWait("a", "prod")).isEqualTo(Duration.ofSeconds(3));
        assertThat(policy.maxWait("b", "dev")).isEqualTo(Duration.ofSeconds(2));
        assertThat(policy.maxWait("b", "default")).isEqualTo(Duration.ofSeconds(1));
        assertThat(policy.waits()).isTrue();
    }

    @Test
    void nothingWaitsByDefault() {
        WaitPolicy policy = waiting("models.a.rpm=1");
        assertThat(policy.maxWait("a", "default")).isZero();
        assertThat(policy.waits()).isFalse();
        assertThat(policy.maxWaiters()).isEqualTo(1000);
        assertThat(policy.pollInterval()).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void ranksFollowThePriorityOrderThenTheShares() {
        Map<String, String> properties = properties("models.a.rpm=10", "reservation.prod=0.5",
                "reservation.dev=0.1", "reservation.batch=0.3");
        RateLimitPolicy rates = PolicyParser.parse(properties);
        WaitPolicy byShare = InsteadOfRefusalParser.waiting(properties, rates);
        ModelPolicy a = rates.model("a");
        assertThat(List.of(byShare.rank(a, "prod"), byShare.rank(a, "batch"), byShare.rank(a, "dev"),
                byShare.rank(a, "default"))).isSorted().doesNotHaveDuplicates();
        properties.put(PolicyParser.PREFIX + "priority-order", "dev,prod");
        WaitPolicy ordered = InsteadOfRefusalParser.waiting(properties, rates);
        assertThat(List.of(ordered.rank(a, "dev"), ordered.rank(a, "prod"), ordered.rank(a, "batch"),
                ordered.rank(a, "default"))).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void invalidWaitSettingsFailNamingTheProperty() {
        assertThatThrownBy(() -> waiting("models.a.rpm=1", "max-wait=soon"))
                .hasMessageStartingWith("Invalid configuration llm.ratelimit.max-wait=soon");
        assertThatThrownBy(() -> waiting("models.a.rpm=1", "max-waiters=-1"))
                .hasMessage("Invalid configuration llm.ratelimit.max-waiters=-1: expected a whole number >= 0");
        assertThatThrownBy(() -> waiting("models.a.rpm=1", "wait-poll-interval=0ms"))
                .hasMessage("Invalid configuration llm.ratelimit.wait-poll-interval=0ms: must be longer than zero");
    }

    /**
     * A wait or poll interval beyond a day fails at start-up: unbounded, its milliseconds overflow
     * ({@code toMillis()} throws on every refused request, a 500) or the room's next pass wraps into
     * the past and the wait thread spins.
     */
    @Test
    void waitsAndPollIntervalsLongerThanADayFailNamingTheProperty() {
        assertThatThrownBy(() -> waiting("models.a.rpm=1", "max-wait=9999999999999h"))
                .hasMessage("Invalid configuration llm.ratelimit.max-wait=9999999999999h: must be at most 1 day (PT24H)");
        assertThatThrownBy(() -> waiting("models.a.rpm=1", "models.a.max-wait.dev=25h"))
                .hasMessage("Invalid configuration llm.ratelimit.models.a.max-wait.dev=25h: must be at most 1 day (PT24H)");
        assertThatThrownBy(() -> waiting("models.a.rpm=1", "max-wait=1s", "wait-poll-interval=9223372036854775807ms"))
                .hasMessage("Invalid configuration llm.ratelimit.wait-poll-interval=9223372036854775807ms: "
                        + "must be at most 1 day (PT24H)");
        assertThat(waiting("models.a.rpm=1", "max-wait=24h", "wait-poll-interval=24h").maxWait("a", "dev"))
                .isEqualTo(Duration.ofDays(1));
    }
}
