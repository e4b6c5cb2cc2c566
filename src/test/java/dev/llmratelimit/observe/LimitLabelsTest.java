package dev.llmratelimit.observe;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.Policies;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Labels of refusing limits by index: further windows named on first use, bounded, and their table slots distinct. */
class LimitLabelsTest {

    private final LimitLabels labels = new LimitLabels();

    @Test
    void eachFurtherWindowGetsItsLabelOnceAndBeyondTheBoundTheLabelWithoutIt() {
        int models = LimitLabels.FURTHER_WINDOWS + 2;
        List<String> lines = new ArrayList<>();
        for (int m = 1; m <= models; m++) {
            lines.add("models.m" + m + ".rpm=100");
            lines.add("models.m" + m + ".limits.requests." + m + "s=1");   // one request per m seconds
        }
        RateLimiter limiter = new RateLimiter(Policies.policy(lines.toArray(String[]::new)), new MemoryAdmissionStore());
        List<String> named = new ArrayList<>();
        for (int m = 1; m <= models; m++) {
            limiter.admit(AdmissionRequest.of("m" + m, null, null)).abort();
            Admission refused = limiter.admit(AdmissionRequest.of("m" + m, null, null));
            assertThat(refused.outcome()).isEqualTo(Admission.Outcome.REFUSED);
            int index = labels.index(refused);
            assertThat(labels.index(refused)).isEqualTo(index);                  // the same limit, the same label
            named.add(labels.label(index));
        }
        assertThat(named.get(0)).isEqualTo("model_requests_1s");
        assertThat(named.get(59)).isEqualTo("model_requests");        // 60 s is the configured window: no further one
        assertThat(named.get(119)).isEqualTo("model_requests_2m");
        // m = 60 took no label, so the last one goes to m = FURTHER_WINDOWS + 1 and the next gets none
        assertThat(named.get(LimitLabels.FURTHER_WINDOWS)).isEqualTo("model_requests_" + (LimitLabels.FURTHER_WINDOWS + 1) + "s");
        assertThat(named.get(LimitLabels.FURTHER_WINDOWS + 1)).isEqualTo("model_requests");
        assertThat(labels.index(limiter.admit(AdmissionRequest.of("m1", null, null)))).isLessThan(labels.count());
    }

    @Test
    void everyDecisionThatCanHappenHasASlotOfItsOwn() {
        Set<Integer> slots = new HashSet<>();
        int count = 0;
        for (int outcome = 0; outcome < DecisionLabels.outcomeCount(); outcome++) {
            for (int limit = 0; limit < labels.count(); limit++) {
                boolean refused = DecisionLabels.outcome(outcome).equals("refused");
                if (limit > 0 && !refused) {
                    continue;                                   // only a refusal names a limit
                }
                for (int mode = 0; mode < DecisionLabels.modeCount(); mode++) {
                    for (boolean shadow : new boolean[] {false, true}) {
                        int slot = labels.slot(outcome, limit, mode, shadow);
                        assertThat(slot).isBetween(0, labels.slots() - 1);
                        slots.add(slot);
                        count++;
                    }
                }
            }
        }
        assertThat(slots).hasSize(count);
    }
}
