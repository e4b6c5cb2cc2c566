package dev.llmratelimit.store;

import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.Enforcement;
import dev.llmratelimit.engine.GroupKind;
import dev.llmratelimit.engine.GroupWindow;
import dev.llmratelimit.engine.Increments;
import dev.llmratelimit.engine.Limits;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.Settlement;
import dev.llmratelimit.engine.UsageCost;
import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.BudgetFigures;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.testsupport.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CircuitBreakingAdmissionStoreTest {

    private static final Plan PLAN = new Plan("r", "m", "default", List.of(new CounterGroup(GroupKind.MODEL, "m", "",
            GroupWindow.rolling(60_000, false), new Limits(10, Limits.NONE, Limits.NONE, Limits.NONE), Enforcement.ALWAYS,
            new Increments(1, 0, 0, false))), 600_000, UsageCost.FREE);
    private static final Verdict ADMITTED = admitted(10, 9);

    private final MutableClock clock = new MutableClock();
    private final FlakyStore flaky = new FlakyStore();
    private final CircuitBreakingAdmissionStore store = new CircuitBreakingAdmissionStore(
            flaky, new CircuitBreaker(new CircuitBreakerSettings(3, Duration.ofSeconds(5)), clock));

    @Test
    void opensAfterConsecutiveFailuresAndSkipsTheStoreForTheBackoff() {
        flaky.failing = true;
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> store.decide(PLAN)).isSameAs(flaky.failure);
        }
        assertThat(store.isOpen()).isTrue();
        for (int i = 0; i < 100; i++) {
            assertThatThrownBy(() -> store.decide(PLAN)).isInstanceOf(StoreUnavailableException.class)
                    .isNotSameAs(flaky.failure);
            assertThatThrownBy(() -> store.settle(PLAN, Settlement.of(5, 0))).isInstanceOf(StoreUnavailableException.class);
        }
        assertThat(flaky.calls).isEqualTo(3);

        clock.advance(Duration.ofMillis(4999));
        assertThatThrownBy(() -> store.decide(PLAN)).isInstanceOf(StoreUnavailableException.class);
        assertThat(flaky.calls).isEqualTo(3);
    }

    @Test
    void aFailedProbeOpensTheCircuitForAnotherBackoff() {
        flaky.failing = true;
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> store.decide(PLAN)).isSameAs(flaky.failure);
        }
        clock.advance(Duration.ofSeconds(5));
        assertThatThrownBy(() -> store.decide(PLAN)).isSameAs(flaky.failure);     // the probe
        assertThatThrownBy(() -> store.decide(PLAN)).isNotSameAs(flaky.failure);  // skipped again
        assertThat(flaky.calls).isEqualTo(4);

        clock.advance(Duration.ofMillis(4999));
        assertThatThrownBy(() -> store.decide(PLAN)).isNotSameAs(flaky.failure);
        clock.advance(Duration.ofMillis(1));
        flaky.failing = false;
        assertThat(store.decide(PLAN)).isSameAs(ADMITTED);                          // the probe succeeds
        assertThat(store.isOpen()).isFalse();
        for (int i = 0; i < 10; i++) {
            assertThat(store.decide(PLAN)).isSameAs(ADMITTED);
        }
        assertThat(flaky.calls).isEqualTo(15);
    }

    @Test
    void afterAFailedProbeTheNextComesAfterTheProbeIntervalNotAnotherBackoff() {
        FlakyStore endpoint = new FlakyStore();
        CircuitBreakingAdmissionStore probing = new CircuitBreakingAdmissionStore(endpoint,
                new CircuitBreaker(new CircuitBreakerSettings(3, Duration.ofSeconds(1), Duration.ofMillis(200)), clock));
        endpoint.failing = true;
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> probing.decide(PLAN)).isSameAs(endpoint.failure);
        }
        clock.advance(Duration.ofSeconds(1));
        assertThatThrownBy(() -> probing.decide(PLAN)).isSameAs(endpoint.failure);   // an early probe: still reconnecting
        clock.advance(Duration.ofMillis(199));
        assertThatThrownBy(() -> probing.decide(PLAN)).isNotSameAs(endpoint.failure);
        assertThat(endpoint.calls).isEqualTo(4);
        clock.advance(Duration.ofMillis(1));
        endpoint.failing = false;
        assertThat(probing.decide(PLAN)).isSameAs(ADMITTED);                          // back 200 ms later, not 1 s
        assertThat(probing.isOpen()).isFalse();
    }

    @Test
    void onlyConsecutiveFailuresCount() {
        for (int i = 0; i < 10; i++) {
            flaky.failing = true;
            assertThatThrownBy(() -> store.decide(PLAN)).isSameAs(flaky.failure);
            assertThatThrownBy(() -> store.settle(PLAN, Settlement.of(1, 0))).isSameAs(flaky.failure);
            flaky.failing = false;
            store.settle(PLAN, Settlement.of(1, 0));
        }
        assertThat(store.isOpen()).isFalse();
        assertThat(flaky.calls).isEqualTo(30);
    }

    @Test
    void whileOpenOnlyOneProbeAtATimeReachesTheStore() {
        flaky.failing = true;
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> store.decide(PLAN)).isSameAs(flaky.failure);
        }
        clock.advance(Duration.ofSeconds(5));
        flaky.failing = false;
        flaky.duringCall = () -> assertThatThrownBy(() -> store.decide(PLAN))   // a second request meanwhile
                .isInstanceOf(StoreUnavailableException.class).isNotSameAs(flaky.failure);
        assertThat(store.decide(PLAN)).isSameAs(ADMITTED);
        assertThat(flaky.calls).isEqualTo(4);
    }

    @Test
    void settingsHaveDefaultsAndRefuseNonsense() {
        assertThat(CircuitBreakerSettings.parse(Map.of()))
                .isEqualTo(new CircuitBreakerSettings(3, Duration.ofSeconds(1), Duration.ofMillis(250)));
        assertThat(CircuitBreakerSettings.parse(Map.of(CircuitBreakerSettings.FAILURE_THRESHOLD, "1",
                CircuitBreakerSettings.BACKOFF, "250ms", CircuitBreakerSettings.PROBE_INTERVAL, "50ms")))
                .isEqualTo(new CircuitBreakerSettings(1, Duration.ofMillis(250), Duration.ofMillis(50)));
        assertThatThrownBy(() -> CircuitBreakerSettings.parse(Map.of(CircuitBreakerSettings.FAILURE_THRESHOLD, "0")))
                .isInstanceOf(PolicyException.class).hasMessageContaining("llm.ratelimit.store-failure-threshold=0");
        assertThatThrownBy(() -> CircuitBreakerSettings.parse(Map.of(CircuitBreakerSettings.FAILURE_THRESHOLD, "three")))
                .isInstanceOf(PolicyException.class).hasMessageContaining("=three");
        assertThatThrownBy(() -> CircuitBreakerSettings.parse(Map.of(CircuitBreakerSettings.BACKOFF, "0s")))
                .isInstanceOf(PolicyException.class).hasMessageContaining("llm.ratelimit.store-backoff=0s");
    }

    /** A store that fails while told to, counting every call that reaches it. */
    private static final class FlakyStore implements AdmissionStore {
        final StoreUnavailableException failure = new StoreUnavailableException("down", null);
        boolean failing;
        int calls;
        Runnable duringCall = () -> { };

        @Override
        public Verdict decide(Plan plan) {
            call();
            return ADMITTED;
        }

        @Override
        public void settle(Plan plan, Settlement settlement) {
            call();
        }

        private void call() {
            calls++;
            Runnable inside = duringCall;
            duringCall = () -> { };
            inside.run();
            if (failing) {
                throw failure;
            }
        }
    }

    /** An admitted verdict showing a requests limit and what is left of it. */
    private static Verdict admitted(long requestLimit, long requestRemaining) {
        long[] limits = Verdict.noFigures();
        long[] remaining = Verdict.noFigures();
        limits[Dimension.REQUESTS.index()] = requestLimit;
        remaining[Dimension.REQUESTS.index()] = requestRemaining;
        return new Verdict(null, false, 0, limits, remaining, 1000, BudgetFigures.NONE);
    }
}
