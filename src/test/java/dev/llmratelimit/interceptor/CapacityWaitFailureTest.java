package dev.llmratelimit.interceptor;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.wait.AdmissionDecider;
import dev.llmratelimit.wait.WaitRoom;
import dev.llmratelimit.wait.WaitingDecision;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The interceptor's side of the wait room when deciding a waiting call again fails: the failure
 * reaches the interceptor (which applies {@code on-internal-error}); it is never turned into the
 * refusal the call had, nor left unanswered.
 */
class CapacityWaitFailureTest {

    private final WaitRoom room = new WaitRoom(Clock.systemUTC(), 10, Duration.ofMillis(20));

    @AfterEach
    void close() {
        room.close();
    }

    private Admission refusal() {
        RateLimiter limiter = new RateLimiter(policy("models.m.rpm=1"), new MemoryAdmissionStore(new MutableClock()));
        limiter.admit(AdmissionRequest.of("m", null, null));
        Admission refused = limiter.admit(AdmissionRequest.of("m", null, null));
        assertThat(refused.outcome()).isEqualTo(Admission.Outcome.REFUSED);
        return refused;
    }

    private WaitingDecision<Admission> failingWait(Admission refusal) {
        return WaitingDecision.enter(room, refusal, new AdmissionDecider(() -> {
            throw new IllegalStateException("decider bug");
        }), 0, Clock.systemUTC(), 5_000);
    }

    @Test
    void aBlockedCallerGetsTheFailureNotTheRefusal() {
        Admission refusal = refusal();
        WaitingDecision<Admission> waiting = failingWait(refusal);
        assertThatThrownBy(() -> CapacityWait.await(waiting, refusal))
                .isInstanceOf(IllegalStateException.class).hasMessage("decider bug");
        assertThat(room.waiters()).isZero();
    }

    @Test
    void anAsynchronousCallIsAnsweredAsTheFailureHandlerSays() throws Exception {
        WaitingDecision<Admission> waiting = failingWait(refusal());
        CompletionStage<Object> answer = CapacityWait.later(waiting,
                admitted -> CompletableFuture.completedFuture("ran"),
                failure -> CompletableFuture.failedFuture(new IllegalArgumentException("503 for " + failure.getMessage())));
        assertThatThrownBy(() -> answer.toCompletableFuture().get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasRootCauseMessage("503 for decider bug");
        assertThat(room.waiters()).isZero();
    }
}
