package dev.llmratelimit.config;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.GroupKind;
import dev.llmratelimit.identity.Caller;
import dev.llmratelimit.identity.MetadataPrincipal;
import dev.llmratelimit.testsupport.Policies;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/** A caller's metadata sets limits of any window, as configuration does, and the engine holds the caller to them. */
class MetadataLimitsTest {

    private static final Function<Caller, AdmissionRequest> REQUEST = who -> AdmissionRequest.of("m", null, null);

    @Test
    void aKeysMetadataLimitPerHourRefusesTheThirdRequestUntilTheHourEnds() {
        MetadataPrincipal key = new MetadataPrincipal() {
            @Override
            public String getName() {
                return "ci-bot";
            }

            @Override
            public Map<String, String> metadata() {
                return Map.of("limits.requests.1h", "2", "rpm-limit", "100");
            }
        };
        try (RateLimitRuntime runtime = RateLimitRuntime.create(Policies.properties("models.m.rpm=1000"), null)) {
            ResolvedCaller caller = runtime.resolve(key);

            assertThat(runtime.admit(caller, REQUEST).outcome()).isEqualTo(Admission.Outcome.ADMITTED);
            assertThat(runtime.admit(caller, REQUEST).outcome()).isEqualTo(Admission.Outcome.ADMITTED);
            Admission refused = runtime.admit(caller, REQUEST);

            assertThat(refused.outcome()).isEqualTo(Admission.Outcome.REFUSED);
            assertThat(refused.refusal().group().kind()).isEqualTo(GroupKind.KEY);
            assertThat(refused.refusal().dimension()).isEqualTo(Dimension.REQUESTS);
            assertThat(refused.refusal().limit()).isEqualTo(2);
            assertThat(refused.refusal().group().window().millis()).isEqualTo(3_600_000);
            assertThat(refused.refusal().retryAfterSeconds()).isBetween(3590L, 3600L);
        }
    }
}
