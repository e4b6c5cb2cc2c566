package dev.llmratelimit.store.memory;

import dev.llmratelimit.engine.CounterStore;
import dev.llmratelimit.engine.DecisionPlan;
import dev.llmratelimit.engine.DecisionRule;
import dev.llmratelimit.engine.Verdict;

import java.time.Clock;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Counters in this JVM's memory, one lock per model. State exists only for models the engine has
 * plans for (configured models); an expired window is reset in place, so memory is bounded by
 * configured models times their pools.
 */
public final class MemoryCounterStore implements CounterStore {

    private final Clock clock;
    private final ConcurrentMap<String, ModelWindow> windows = new ConcurrentHashMap<>();

    public MemoryCounterStore(Clock clock) {
        this.clock = clock;
    }

    public MemoryCounterStore() {
        this(Clock.systemUTC());
    }

    @Override
    public Verdict decide(DecisionPlan plan) {
        ModelWindow window = windowOf(plan);
        long now = clock.millis();
        synchronized (window) {
            window.rollIfExpired(now, plan.windowMillis());
            int pool = plan.poolIndex();
            Verdict verdict = DecisionRule.decide(plan, window.requests, window.tokens,
                    window.poolRequests[pool], window.poolTokens[pool], window.end - now);
            if (verdict.admitted()) {
                window.requests++;
                window.poolRequests[pool]++;
            }
            return verdict;
        }
    }

    @Override
    public void record(DecisionPlan plan, long tokens) {
        ModelWindow window = windowOf(plan);
        long now = clock.millis();
        synchronized (window) {
            window.rollIfExpired(now, plan.windowMillis());
            window.tokens += tokens;
            window.poolTokens[plan.poolIndex()] += tokens;
        }
    }

    private ModelWindow windowOf(DecisionPlan plan) {
        ModelWindow window = windows.get(plan.model());
        return window != null ? window : windows.computeIfAbsent(plan.model(), m -> new ModelWindow(plan.poolCount()));
    }

    /** The live window of one model; guarded by its own monitor. */
    private static final class ModelWindow {
        long end = Long.MIN_VALUE;
        long requests;
        long tokens;
        final long[] poolRequests;
        final long[] poolTokens;

        ModelWindow(int pools) {
            poolRequests = new long[pools];
            poolTokens = new long[pools];
        }

        void rollIfExpired(long now, long windowMillis) {
            if (now < end) {
                return;
            }
            end = now + windowMillis;
            requests = 0;
            tokens = 0;
            java.util.Arrays.fill(poolRequests, 0);
            java.util.Arrays.fill(poolTokens, 0);
        }
    }
}
