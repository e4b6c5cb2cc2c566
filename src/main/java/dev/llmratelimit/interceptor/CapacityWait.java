package dev.llmratelimit.interceptor;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.CallEnding;
import dev.llmratelimit.identity.Caller;
import dev.llmratelimit.wait.AdmissionDecider;
import dev.llmratelimit.wait.WaitRoom;
import dev.llmratelimit.wait.WaitingDecision;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;

/** A refused {@code @RateLimited} call waiting for capacity (docs/instead-of-429.md), where its model and pool allow it. */
final class CapacityWait {

    /** How much longer than its own deadline a blocked caller waits for the room's answer. */
    private static final long GRACE_MILLIS = 5_000;

    private CapacityWait() {
    }

    /** The wait of a refused call, or {@code null} when it cannot wait (not refused by a limit, no wait configured, room full). */
    static WaitingDecision<Admission> enter(RateLimitRuntime runtime, ChatCall call, Caller caller, Admission refusal,
                                            Supplier<Admission> decideAgain) {
        String model = call.model();
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
        return WaitingDecision.enter(room, refusal, new AdmissionDecider(decideAgain), rank, runtime.clock(), maxWait,
                call.body() == null ? 0 : call.body().length, caller.principal() == null ? "" : caller.principal());
    }

    /**
     * The stage an asynchronous call that waits returns at once: the call runs when admitted, or as
     * {@code failed} says when deciding it again failed. A caller that cancels the stage or lets it
     * time out takes the call out of the room, and an admission that came meanwhile is given back,
     * since nobody runs the call for it.
     */
    static CompletionStage<Object> later(WaitingDecision<Admission> waiting,
                                         Function<Admission, CompletionStage<Object>> call,
                                         Function<RuntimeException, CompletionStage<Object>> failed) {
        CompletableFuture<Object> answer = new CompletableFuture<>();
        answer.whenComplete((result, failure) -> waiting.leave());      // no effect once the wait is over
        waiting.outcome().whenCompleteAsync((admission, failure) -> {
            if (failure instanceof CancellationException) {
                return;
            }
            if (answer.isDone()) {
                if (admission != null) {
                    CallEnding.NOT_SERVED.settle(admission);
                }
                return;
            }
            CompletionStage<Object> running = failure == null ? call.apply(admission) : failed.apply(asRuntime(failure));
            running.whenComplete((result, thrown) -> {
                if (thrown != null) {
                    answer.completeExceptionally(thrown);
                } else {
                    answer.complete(result);
                }
            });
        });
        return answer;
    }

    /**
     * Blocks the calling thread until the call is admitted or its wait is over; then the last refusal
     * (the first one if the room never answered).
     *
     * @throws RuntimeException the failure when deciding the call again failed
     */
    static Admission await(WaitingDecision<Admission> waiting, Admission refusal) throws InterruptedException {
        try {
            return waiting.outcome().get(waiting.millisLeft() + GRACE_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Admission meanwhile = leave(waiting);
            if (meanwhile != null) {
                CallEnding.NOT_SERVED.settle(meanwhile);
            }
            throw e;
        } catch (ExecutionException e) {
            waiting.leave();
            throw asRuntime(e.getCause());
        } catch (TimeoutException | CancellationException e) {
            Admission meanwhile = leave(waiting);
            return meanwhile != null ? meanwhile : refusal;
        }
    }

    private static RuntimeException asRuntime(Throwable failure) {
        return failure instanceof RuntimeException runtime ? runtime : new IllegalStateException(failure);
    }

    /** Leaves the room; the decision that completed the wait just before, if one did (it must not be dropped). */
    private static Admission leave(WaitingDecision<Admission> waiting) {
        waiting.leave();
        CompletableFuture<Admission> outcome = waiting.outcome();
        return outcome.isDone() && !outcome.isCompletedExceptionally() ? outcome.join() : null;
    }
}
