package dev.llmratelimit.config;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.GroupKind;
import dev.llmratelimit.identity.Caller;
import dev.llmratelimit.identity.CallerResolver;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.testsupport.Policies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The runtime re-reads its configuration: what it applies, what it refuses, and what it reports. */
class RuntimeReloadTest {

    private final MutableClock clock = new MutableClock();
    private final AtomicReference<Map<String, String>> properties = new AtomicReference<>();

    private RateLimitRuntime runtime(String... lines) {
        properties.set(Policies.properties(lines));
        return RateLimitRuntime.create(ConfigurationLoader.of("test properties", properties::get), null, clock);
    }

    private void change(String... lines) {
        properties.set(Policies.properties(lines));
    }

    @Test
    void theStatusSaysWhatWasLoadedWhenAndWhyAReadingWasRefused() {
        Instant start = clock.instant();
        try (RateLimitRuntime runtime = runtime("models.m.rpm=10")) {
            assertThat(runtime.configurationStatus()).isEqualTo(new ConfigurationStatus("test properties", start, start, null));

            clock.advance(Duration.ofSeconds(30));
            assertThat(runtime.reload()).isFalse();
            assertThat(runtime.configurationStatus()).isEqualTo(
                    new ConfigurationStatus("test properties", start, start.plusSeconds(30), null));

            clock.advance(Duration.ofSeconds(30));
            change("models.m.rpm=-3");
            assertThat(runtime.reload()).isFalse();
            assertThat(runtime.configurationStatus()).isEqualTo(new ConfigurationStatus("test properties", start,
                    start.plusSeconds(60), "Invalid configuration llm.ratelimit.models.m.rpm=-3: must be at least 1"
                            + " (leave it out for no limit)"));
            assertThat(runtime.limiter().policy().model("m").rpm()).isEqualTo(10);

            clock.advance(Duration.ofSeconds(30));
            change("models.m.rpm=20", "reservation.prod=0.5");
            assertThat(runtime.reload()).isTrue();
            assertThat(runtime.configurationStatus()).isEqualTo(
                    new ConfigurationStatus("test properties", start.plusSeconds(90), start.plusSeconds(90), null));
            assertThat(runtime.limiter().policy().model("m").rpm()).isEqualTo(20);
            assertThat(runtime.limiter().policy().model("m").shareOf("prod")).isEqualTo(0.5);
        }
    }

    @Test
    void modelsAndCallerSettingsComeAndGoWithTheFile() {
        try (RateLimitRuntime runtime = runtime("models.m.rpm=10", "principals.alice.priority=prod", "reservation.prod=0.5")) {
            assertThat(runtime.callerResolver().resolve(() -> "alice").ownPriority()).isEqualTo("prod");

            change("models.n.tpm=500", "principals.alice.priority=dev", "reservation.dev=0.5");
            assertThat(runtime.reload()).isTrue();

            assertThat(runtime.limiter().policy().models().keySet()).containsExactly("n");
            assertThat(runtime.callerResolver().resolve(() -> "alice").ownPriority()).isEqualTo("dev");
        }
    }

    @Test
    void aCallerResolvedBeforeAReloadIsDecidedWithTheNewConfigurationsLimits() {
        try (RateLimitRuntime runtime = runtime("models.m.rpm=100", "principals.alice.rpm-limit=10")) {
            ResolvedCaller alice = runtime.resolve(() -> "alice");          // as a request that then waits
            change("models.m.rpm=100", "principals.alice.rpm-limit=1");
            assertThat(runtime.reload()).isTrue();

            Function<Caller, AdmissionRequest> request = who -> AdmissionRequest.of("m", who.teamPriority(), who.ownPriority());
            assertThat(runtime.admit(alice, request).outcome()).isEqualTo(Admission.Outcome.ADMITTED);
            Admission refused = runtime.admit(alice, request);
            assertThat(refused.outcome()).isEqualTo(Admission.Outcome.REFUSED);
            assertThat(refused.refusal().group().kind()).isEqualTo(GroupKind.KEY);
            assertThat(refused.refusal().limit()).isEqualTo(1);
        }
    }

    @Test
    void aCallersDailyLimitKeepsItsCountWhenTheWindowChanges() {
        try (RateLimitRuntime runtime = runtime("models.m.rpm=1000", "principals.alice.rpd-limit=3", "window=60s")) {
            ResolvedCaller alice = runtime.resolve(() -> "alice");
            Function<Caller, AdmissionRequest> request = who -> AdmissionRequest.of("m", null, null);
            for (int i = 0; i < 3; i++) {
                assertThat(runtime.admit(alice, request).outcome()).isEqualTo(Admission.Outcome.ADMITTED);
            }
            change("models.m.rpm=1000", "principals.alice.rpd-limit=3", "window=2m");
            assertThat(runtime.reload()).isTrue();

            Admission refused = runtime.admit(runtime.resolve(() -> "alice"), request);
            assertThat(refused.outcome()).isEqualTo(Admission.Outcome.REFUSED);
            assertThat(refused.refusal().group().kind()).isEqualTo(GroupKind.KEY);
            assertThat(refused.refusal().limit()).isEqualTo(3);
        }
    }

    @Test
    void theApplicationsOwnResolverIsKeptAcrossReloads() {
        properties.set(Policies.properties("models.m.rpm=10"));
        CallerResolver own = principal -> Caller.ANONYMOUS;
        try (RateLimitRuntime runtime = RateLimitRuntime.create(ConfigurationLoader.of("test", properties::get), own, clock)) {
            change("models.m.rpm=11");
            assertThat(runtime.reload()).isTrue();
            assertThat(runtime.callerResolver()).isSameAs(own);
        }
    }

    @Test
    void aReloadThatCatchesTheFileEmptyKeepsTheRunningPolicy(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("limits.properties"), "llm.ratelimit.models.m.rpm=10\n");
        try (RateLimitRuntime runtime = runtime("config-file=" + file)) {
            Files.writeString(file, "");

            assertThat(runtime.reload()).isFalse();
            assertThat(runtime.limiter().policy().model("m").rpm()).isEqualTo(10);
            assertThat(runtime.configurationStatus().lastError()).isEqualTo("Invalid configuration llm.ratelimit.config-file="
                    + file + ": the file is empty; a configuration file holds at least one setting (write it whole,"
                    + " a new file renamed over the old one, so that a reload never reads it half-written)");
        }
    }

    /** The interval runs on its own thread; the test waits for its result instead of sleeping a fixed time. */
    @Test
    void withAReloadIntervalAChangedFileIsPickedUpOnItsOwn(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("limits.properties"), "llm.ratelimit.models.m.rpm=10\n");
        try (RateLimitRuntime runtime = runtime("reload-interval=20ms", "config-file=" + file)) {
            assertThat(runtime.limiter().policy().model("m").rpm()).isEqualTo(10);

            Files.writeString(file, "llm.ratelimit.models.m.rpm=25\n");   // in place: a reload may catch it empty

            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (runtime.limiter().policy().model("m").rpm() != 25 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(runtime.limiter().policy().model("m").rpm()).isEqualTo(25);
            assertThat(runtime.configurationStatus().origin()).isEqualTo("test properties over " + file);
        }
    }

    @Test
    void theRuntimesOwnPropertiesWinOverTheFile(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("config.yaml"),
                "model_list:\n  - model_name: m\n    litellm_params: {rpm: 10, tpm: 100}\n");
        try (RateLimitRuntime runtime = runtime("config-file=" + file, "models.m.rpm=3")) {
            assertThat(runtime.limiter().policy().model("m").rpm()).isEqualTo(3);
            assertThat(runtime.limiter().policy().model("m").tpm()).isEqualTo(100);
        }
    }

    @Test
    void anInvalidConfigurationStillFailsAtStartUp() {
        properties.set(Policies.properties("models.m.rpm=ten"));
        assertThatThrownBy(() -> RateLimitRuntime.create(ConfigurationLoader.of("test", properties::get), null, clock))
                .hasMessage("Invalid configuration llm.ratelimit.models.m.rpm=ten: expected a whole number");
        properties.set(Policies.properties("models.m.rpm=1", "reload-interval=0s"));
        assertThatThrownBy(() -> RateLimitRuntime.create(ConfigurationLoader.of("test", properties::get), null, clock))
                .hasMessage("Invalid configuration llm.ratelimit.reload-interval=0s: expected a duration above zero,"
                        + " such as 30s (leave it out for no reload)");
    }

    @Test
    void aRuntimeBuiltOverAGivenLimiterHasNothingToReload() {
        Map<String, String> none = new HashMap<>();
        try (RateLimitRuntime built = RateLimitRuntime.create(none, null);
             RateLimitRuntime runtime = new RateLimitRuntime(built.settings(), built.limiter(), built.callerResolver(),
                     built.callerLimits(), () -> { })) {
            assertThatThrownBy(runtime::reload).isInstanceOf(IllegalStateException.class);
        }
    }
}
