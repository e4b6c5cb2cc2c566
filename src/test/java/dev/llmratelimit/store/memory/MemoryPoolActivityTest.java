package dev.llmratelimit.store.memory;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.testsupport.Policies;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class MemoryPoolActivityTest {

    private final MutableClock clock = new MutableClock();
    private final MemoryAdmissionStore store = new MemoryAdmissionStore(clock);

    private RateLimiter limiter(String... reservations) {
        String[] lines = new String[reservations.length + 2];
        lines[0] = "models.m.tpm=1000";
        lines[1] = "fairness=work-conserving";
        System.arraycopy(reservations, 0, lines, 2, reservations.length);
        return new RateLimiter(Policies.policy(lines), store, clock, RateLimiter.DEFAULT_LEASE_MILLIS, List.of());
    }

    private static List<String> activeWhen(RateLimiter limiter, String priority) {
        Admission admission = limiter.admit(AdmissionRequest.of("m", priority, null));
        admission.abort();
        return admission.verdict().sharing().activePools();
    }

    @Test
    void aReloadThatChangesThePoolsKeepsEachPoolsActivityByName() {
        RateLimiter before = limiter("reservation.a=0.5", "reservation.b=0.5");
        assertThat(activeWhen(before, "b")).containsExactly("b");

        RateLimiter reloaded = limiter("reservation.b=0.5", "reservation.c=0.3");   // a gone, b moved up, c new

        assertThat(activeWhen(reloaded, "c")).containsExactly("b", "c");
        assertThat(activeWhen(reloaded, "b")).containsExactly("b", "c");
    }
}
