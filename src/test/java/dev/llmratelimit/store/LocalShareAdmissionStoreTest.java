package dev.llmratelimit.store;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.engine.Settlement;
import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.testsupport.Policies;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** While the shared store does not answer, each instance decides on its share of every limit, in its own memory. */
class LocalShareAdmissionStoreTest {

    /** A shared store that never answers, and never ran anything. */
    private static final AdmissionStore AWAY = new AdmissionStore() {
        @Override
        public Verdict decide(Plan plan) {
            throw StoreUnavailableException.notRun("away");
        }

        @Override
        public void settle(Plan plan, Settlement settlement) {
            throw StoreUnavailableException.notRun("away");
        }
    };

    @Test
    void aThirdOfTheLimitRoundedUpOnCountersCompiledOnce() {
        MutableClock clock = new MutableClock();
        MemoryAdmissionStore local = new MemoryAdmissionStore(clock);
        RateLimiter limiter = new RateLimiter(Policies.policy("models.m.rpm=10", "window=60s"),
                new LocalShareAdmissionStore(AWAY, local, () -> 3), clock, 600_000, List.of());
        List<Admission> admissions = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            admissions.add(limiter.admit(AdmissionRequest.of("m", null, null)));
        }
        assertThat(admissions).extracting(Admission::outcome).containsExactly(Admission.Outcome.ADMITTED,
                Admission.Outcome.ADMITTED, Admission.Outcome.ADMITTED, Admission.Outcome.ADMITTED,
                Admission.Outcome.REFUSED, Admission.Outcome.REFUSED);
        assertThat(admissions.get(3).verdict().requestLimit()).isEqualTo(4);
        assertThat(admissions.get(0).plan().groups().compiled(local)).as("what the local store compiled, once")
                .isNotNull().isSameAs(admissions.get(5).plan().groups().compiled(local));
        admissions.forEach(Admission::abort);
        assertThat(limiter.admit(AdmissionRequest.of("m", null, null)).outcome())
                .as("an abort keeps the request counted").isEqualTo(Admission.Outcome.REFUSED);
    }
}
