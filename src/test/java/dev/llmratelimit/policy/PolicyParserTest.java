package dev.llmratelimit.policy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;

import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class PolicyParserTest {

    @Test
    void defaults() {
        RateLimitPolicy policy = policy("models.m.rpm=10");
        ModelPolicy model = policy.model("m");
        assertThat(model.saturationThreshold()).isEqualTo(0.50);
        assertThat(model.defaultShare()).isEqualTo(0.25);
        assertThat(model.poolsEnforced()).isFalse();
        assertThat(policy.window()).isEqualTo(Duration.ofSeconds(60));
        assertThat(policy.windowMode()).isEqualTo(WindowMode.FIXED);
        assertThat(policy.rateLimitType()).isEqualTo(RateLimitType.TOTAL);
        assertThat(policy.tokenAdmission()).isEqualTo(TokenAdmission.RECORDED);
        assertThat(policy.mode()).isEqualTo(EnforcementMode.ENFORCE);
        assertThat(policy.onStoreFailure()).isEqualTo(StoreFailureMode.FAIL_OPEN);
        assertThat(policy.rejectUnknownModels()).isFalse();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "0.9                        | 0.9",
            "percent:0.9                | 0.9",
            "rpm:9                      | 0.9",
            "tpm:900                    | 0.9",
            "{\"type\":\"rpm\",\"value\":9} | 0.9",
            "{\"value\": 900, \"type\": \"tpm\"} | 0.9"})
    void everyReservationFormGivesTheSameShare(String written, double share) {
        ModelPolicy model = policy("models.m.rpm=10", "models.m.tpm=1000", "reservation.prod=" + written).model("m");
        assertThat(model.shareOf("prod")).isCloseTo(share, within(1e-12));
    }

    @Test
    void oversubscribedSharesAreDividedByTheirSum() {
        ModelPolicy model = policy("models.m.rpm=100", "reservation.a=0.6", "reservation.b=0.8").model("m");
        assertThat(model.shareOf("a")).isCloseTo(0.6 / 1.4, within(1e-12));
        assertThat(model.shareOf("b")).isCloseTo(0.8 / 1.4, within(1e-12));
        assertThat(model.shareOf("anyone-else")).isEqualTo(0.25);
        assertThat(ModelPolicy.poolLimit(100, model.shareOf("a"))).isEqualTo(42);
        assertThat(ModelPolicy.poolLimit(100, model.shareOf("b"))).isEqualTo(57);
    }

    @Test
    void perModelOverridesReplaceGlobalValues() {
        RateLimitPolicy policy = policy("models.m.rpm=10", "models.n.rpm=10", "reservation.prod=0.9",
                "reservation.dev=0.1", "models.m.reservation.prod=0.5", "models.m.saturation-threshold=0.8");
        assertThat(policy.model("m").shareOf("prod")).isEqualTo(0.5);
        assertThat(policy.model("m").shareOf("dev")).isEqualTo(0.1);
        assertThat(policy.model("m").saturationThreshold()).isEqualTo(0.8);
        assertThat(policy.model("n").shareOf("prod")).isEqualTo(0.9);
        assertThat(policy.model("n").saturationThreshold()).isEqualTo(0.5);
    }

    @Test
    void quotedModelNamesMayHoldDots() {
        RateLimitPolicy policy = policy("models.\"gpt-4.1\".tpm=1000", "models.org/model:v1.rpm=5");
        assertThat(policy.model("gpt-4.1").tpm()).isEqualTo(1000);
        assertThat(policy.model("org/model:v1").rpm()).isEqualTo(5);
    }

    @Test
    void poolLimitsRoundDownWithoutBinaryRoundingErrors() {
        assertThat(ModelPolicy.poolLimit(100, 0.29)).isEqualTo(29);
        assertThat(ModelPolicy.poolLimit(10, 0.15)).isEqualTo(1);
    }

    @Test
    void windowsInEveryWrittenForm() {
        assertThat(policy("window=500ms").window()).isEqualTo(Duration.ofMillis(500));
        assertThat(policy("window=2m").window()).isEqualTo(Duration.ofMinutes(2));
        assertThat(policy("window=PT90S").window()).isEqualTo(Duration.ofSeconds(90));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "reservation.dev=-0.1           | Invalid configuration llm.ratelimit.reservation.dev=-0.1: a reservation must be a finite number >= 0",
            "reservation.dev=NaN            | Invalid configuration llm.ratelimit.reservation.dev=NaN: a reservation must be a finite number >= 0",
            "reservation.dev=lots           | Invalid configuration llm.ratelimit.reservation.dev=lots: not a number: 'lots'",
            "reservation.dev=share:0.5      | Invalid configuration llm.ratelimit.reservation.dev=share:0.5: unknown reservation type 'share' (expected percent, rpm or tpm)",
            "reservation.dev=tpm:100        | Invalid configuration llm.ratelimit.reservation.dev=tpm:100.0: model 'm' has no tpm configured",
            "saturation-threshold=1.5       | Invalid configuration llm.ratelimit.saturation-threshold=1.5: must lie between 0 and 1",
            "models.m.saturation-threshold=-1 | Invalid configuration llm.ratelimit.models.m.saturation-threshold=-1: must lie between 0 and 1",
            "default-priority=abc           | Invalid configuration llm.ratelimit.default-priority=abc: not a number",
            "window=0s                      | Invalid configuration llm.ratelimit.window=0s: the window must be longer than zero",
            "window=-5s                     | Invalid configuration llm.ratelimit.window=-5s: the window must be longer than zero",
            "window=-9999999999999999s      | Invalid configuration llm.ratelimit.window=-9999999999999999s: the window must be longer than zero",
            "window=PT0.0005S               | Invalid configuration llm.ratelimit.window=PT0.0005S: the window must be at least 1ms",
            "window=3654d                   | Invalid configuration llm.ratelimit.window=3654d: the window must be at most 3653 days",
            "window=999999999999999d        | Invalid configuration llm.ratelimit.window=999999999999999d: the duration is out of range",
            "window=9999999999999h          | Invalid configuration llm.ratelimit.window=9999999999999h: the window must be at most 3653 days",
            "models.m.limits.requests.3654d=5 | Invalid configuration llm.ratelimit.models.m.limits.requests.3654d=5: the window must be at most 3653 days",
            "window=soon                    | Invalid configuration llm.ratelimit.window=soon: expected a duration such as 500ms, 60s, 2m, 1h or PT60S",
            "mode=loud                      | Invalid configuration llm.ratelimit.mode=loud: expected one of enforce, shadow",
            "fairness=fair                  | Invalid configuration llm.ratelimit.fairness=fair: expected one of saturation, work-conserving",
            "models.m.fairness=fair         | Invalid configuration llm.ratelimit.models.m.fairness=fair: expected one of saturation, work-conserving",
            "rate-limit-type=words          | Invalid configuration llm.ratelimit.rate-limit-type=words: expected one of total, input, output",
            "models.m.tpm=-3                | Invalid configuration llm.ratelimit.models.m.tpm=-3: must be at least 1 (leave it out for no limit)",
            "models.m.tmp=3                 | Invalid configuration llm.ratelimit.models.m.tmp=3: unknown model setting (expected rpm, tpm, itpm, otpm, rpd, tpd, limits.<dimension>.<duration>, saturation-threshold, fairness, expected-output-tokens, reservation.<priority>, fallbacks or max-wait)",
            "reservation.default=0.5        | Invalid configuration llm.ratelimit.reservation.default=default: 'default' is not a priority name; the default pool's share is llm.ratelimit.default-priority"})
    void invalidValuesNameThePropertyAndTheValue(String line, String message) {
        assertThatThrownBy(() -> policy("models.m.rpm=10", line))
                .isInstanceOf(PolicyException.class)
                .hasMessage(message);
    }
}
