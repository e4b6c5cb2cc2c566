package dev.llmratelimit.engine;

import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.llmratelimit.testsupport.Admits.admit;

class RateLimiterTest {

    private final MutableClock clock = new MutableClock();

    private RateLimiter limiter(String... lines) {
        return new RateLimiter(policy(lines), new MemoryAdmissionStore(clock));
    }

    @Test
    void retryAfterIsTheRealTimeLeftInTheWindow() {
        RateLimiter limiter = limiter("models.m.rpm=1");
        admit(limiter, "m", null);
        clock.advance(Duration.ofMillis(20_500));
        Verdict refused = admit(limiter, "m", null).verdict();
        assertThat(refused.resetMillis()).isEqualTo(39_500);
        assertThat(refused.retryAfterSeconds()).isEqualTo(40);
        clock.advance(Duration.ofMillis(39_400));
        assertThat(admit(limiter, "m", null).verdict().retryAfterSeconds()).isEqualTo(1);
    }

    @Test
    void teamPriorityWinsWhenTheModelConfiguresIt() {
        RateLimiter limiter = limiter("models.m.rpm=10", "models.n.rpm=10", "reservation.dev=0.1",
                "models.m.reservation.prod=0.9");
        assertThat(admit(limiter, "m", "prod", "dev").plan().pool()).isEqualTo("prod");
        assertThat(admit(limiter, "n", "prod", "dev").plan().pool()).isEqualTo("dev");
        assertThat(admit(limiter, "n", "prod", "intern").plan().pool()).isEqualTo("default");
    }

    @Test
    void aPriorityNamedDefaultIsNoConfiguredPriority() {
        RateLimiter limiter = limiter("models.m.rpm=10", "reservation.high=0.5");
        assertThat(admit(limiter, "m", "default", "high").plan().pool()).isEqualTo("high");
        assertThat(admit(limiter, "m", "high", "default").plan().pool()).isEqualTo("high");
        assertThat(admit(limiter, "m", "default", null).plan().pool()).isEqualTo("default");
        assertThat(admit(limiter, "m", null, null).plan().pool()).isEqualTo("default");
    }

    @Test
    void usageIsRecordedOnceWithTheConfiguredTokenType() {
        RateLimiter total = limiter("models.m.tpm=1000");
        Admission admission = admit(total, "m", null);
        admission.complete(new Usage(100, 50, 30, 0, 0, true));    // cache reads exempt, as Anthropic counts
        admission.complete(new Usage(100, 50, 30, 0, 0, true));
        assertThat(admit(total, "m", null).verdict().tokenRemaining()).isEqualTo(1000 - 120);

        RateLimiter input = limiter("models.m.tpm=1000", "rate-limit-type=input");
        admit(input, "m", null).complete(new Usage(100, 50, 30, 0, 0, true));
        assertThat(admit(input, "m", null).verdict().tokenRemaining()).isEqualTo(1000 - 70);

        RateLimiter output = limiter("models.m.tpm=1000", "rate-limit-type=output");
        admit(output, "m", null).complete(new Usage(100, 50, 30));
        assertThat(admit(output, "m", null).verdict().tokenRemaining()).isEqualTo(1000 - 50);
    }

    @Test
    void anAbortedAdmissionRecordsNothing() {
        RateLimiter limiter = limiter("models.m.tpm=1000");
        Admission admission = admit(limiter, "m", null);
        admission.abort();
        admission.complete(new Usage(500, 0, 0));
        assertThat(admit(limiter, "m", null).verdict().tokenRemaining()).isEqualTo(1000);
    }

    @Test
    void shadowModeLetsEverythingThroughAndCountsLikeEnforce() {
        RateLimiter limiter = limiter("models.m.rpm=2", "mode=shadow");
        int permitted = 0;
        int wouldRefuse = 0;
        for (int i = 0; i < 5; i++) {
            Admission admission = admit(limiter, "m", null);
            permitted += admission.permitsCall() ? 1 : 0;
            wouldRefuse += admission.outcome() == Admission.Outcome.REFUSED ? 1 : 0;
        }
        assertThat(permitted).isEqualTo(5);
        assertThat(wouldRefuse).isEqualTo(3);
    }

    @Test
    void unknownModelsPassUnlessRejected() {
        assertThat(admit(limiter("models.m.rpm=1"), "x", null).permitsCall()).isTrue();
        Admission rejected = admit(limiter("models.m.rpm=1", "reject-unknown-models=true"), "x", null);
        assertThat(rejected.outcome()).isEqualTo(Admission.Outcome.UNKNOWN_MODEL);
        assertThat(rejected.permitsCall()).isFalse();
    }

    @Test
    void storeFailuresFollowOnStoreFailure() {
        List<Settlement> settlements = new ArrayList<>();
        AdmissionStore broken = new AdmissionStore() {
            @Override
            public Verdict decide(Plan plan) {
                throw new StoreUnavailableException("down", null);
            }

            @Override
            public void settle(Plan plan, Settlement settlement) {
                settlements.add(settlement);
            }
        };
        Admission open = admit(new RateLimiter(policy("models.m.tpm=10"), broken), "m", null);
        assertThat(open.outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_OPEN);
        assertThat(open.permitsCall()).isTrue();
        open.complete(new Usage(5, 5, 0));
        open.complete(new Usage(5, 5, 0));
        // served, so counted: once, with its usage, whether or not its decision ever ran
        assertThat(settlements).containsExactly(Settlement.of(10, 5, 5, 0).asUnanswered());   // tokens, input, output, money

        settlements.clear();
        Admission closed = admit(new RateLimiter(policy("models.m.tpm=10", "on-store-failure=fail-closed"), broken), "m", null);
        assertThat(closed.outcome()).isEqualTo(Admission.Outcome.STORE_FAILED_CLOSED);
        assertThat(closed.permitsCall()).isFalse();
        assertThat(settlements).containsExactly(Settlement.CANCEL);   // refused: its decision, if it runs late, is undone
        closed.complete(new Usage(5, 5, 0));
        assertThat(settlements).containsExactly(Settlement.CANCEL);
    }
}
