package dev.llmratelimit.interceptor;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.wait.AdmissionDecider;
import dev.llmratelimit.wait.WaitRoom;
import dev.llmratelimit.wait.WaitingDecision;

import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/** A refused {@code @RateLimited} call waiting for capacity (SPEC section 15), where its model and pool allow it. */
final class CapacityWait {

    /** How much longer than its own deadline a blocked caller waits for the room's answer. */
    private static final long GRACE_MILLIS = 5_000;

    private CapacityWait() {
    }

    /** The wait of a refused call, or {@code null} when it cannot wait (not refused by a limit, no wait configured, room full). */
    static WaitingDecision<Admission> enter(RateLimitRuntime runtime, String model, Admission refusal,
                                            Supplier<Admission> decideAgain) {
        WaitRoom room = runtime.waitRoom();
        if (room == null || refusal.outcome() != Admission.Outcome.REFUSED) {
            return null;
        }
        String pool = refusal.plan().pool();
        long maxWait = runtime.waitPolicy().maxWait(model, pool).toMillis();
        if (maxWait <= 0) {
            return null;
        }
        int rank = runtime.waitPolicy().rank(runtime.limiter().policy().model(model), pool);
        return WaitingDecision.enter(room, refusal, new AdmissionDecider(decideAgain), rank, runtime.clock(), maxWait);
    }

    /**
     * Blocks the calling thread until the call is admitted or its wait is over; then the last refusal
     * (the first one if the room never answered).
     */
    static Admission await(WaitingDecision<Admission> waiting, Admission refusal) throws InterruptedException {
        try {
            return waiting.outcome().get(waiting.millisLeft() + GRACE_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            waiting.leave();
            throw e;
        } catch (ExecutionException | TimeoutException | CancellationException e) {
            waiting.leave();
            return refusal;
        }
    }
}
