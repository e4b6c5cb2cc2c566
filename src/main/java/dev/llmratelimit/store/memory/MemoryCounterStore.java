package dev.llmratelimit.store.memory;

import dev.llmratelimit.engine.CounterSnapshots;
import dev.llmratelimit.engine.CounterStore;
import dev.llmratelimit.engine.DecisionPlan;
import dev.llmratelimit.engine.DecisionRule;
import dev.llmratelimit.engine.ModelCounters;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.engine.WindowCounts;

import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Counters in this JVM's memory, one lock per model. State exists only for models the engine has
 * plans for (configured models); windows roll in place, so memory is bounded by configured models
 * times their pools.
 */
public final class MemoryCounterStore implements CounterStore, CounterSnapshots {

    private final Clock clock;
    private final ConcurrentMap<String, ModelWindow> windows = new ConcurrentHashMap<>();

    public MemoryCounterStore(Clock clock) {
        this.clock = clock;
    }

    public MemoryCounterStore() {
        this(Clock.systemUTC());
    }

    @Override
    public Verdict decide(DecisionPlan plan, long tokenEstimate) {
        ModelWindow window = windowOf(plan);
        long now = clock.millis();
        synchronized (window) {
            window.roll(now, plan);
            int pool = plan.poolIndex();
            Counts current = window.current;
            Counts previous = window.previous;
            Verdict verdict = DecisionRule.decide(plan, new WindowCounts(
                    current.requests, current.tokens, current.poolRequests[pool], current.poolTokens[pool],
                    previous.requests, previous.tokens, previous.poolRequests[pool], previous.poolTokens[pool],
                    window.end - now, window.end), tokenEstimate);
            if (verdict.admitted()) {
                current.requests++;
                current.poolRequests[pool]++;
                current.addTokens(pool, tokenEstimate);
            }
            return verdict;
        }
    }

    @Override
    public void record(DecisionPlan plan, long tokens, long windowEnd) {
        ModelWindow window = windowOf(plan);
        long now = clock.millis();
        synchronized (window) {
            if (windowEnd == LIVE_WINDOW) {
                window.roll(now, plan);
                window.current.addTokens(plan.poolIndex(), tokens);
                return;
            }
            Counts target = window.countsOf(windowEnd, now, plan);
            if (target != null) {
                target.addTokens(plan.poolIndex(), tokens);
            }
        }
    }

    @Override
    public ModelCounters snapshot(List<DecisionPlan> plans) {
        DecisionPlan plan = plans.get(0);
        ModelWindow window = windows.get(plan.model());
        if (window == null) {
            return ModelCounters.idle(plan.poolCount());
        }
        long now = clock.millis();
        synchronized (window) {
            return ModelCounters.read(plan, window.end, now, window.current.fields(), window.previous.fields());
        }
    }

    private ModelWindow windowOf(DecisionPlan plan) {
        ModelWindow window = windows.get(plan.model());
        return window != null ? window : windows.computeIfAbsent(plan.model(), m -> new ModelWindow(plan.poolCount()));
    }

    /** The counters of one model in one window. */
    private static final class Counts {
        long requests;
        long tokens;
        final long[] poolRequests;
        final long[] poolTokens;

        Counts(int pools) {
            poolRequests = new long[pools];
            poolTokens = new long[pools];
        }

        /** Adds (or with a negative count takes back) tokens, never below zero. */
        void addTokens(int pool, long count) {
            tokens = Math.max(0, tokens + count);
            poolTokens[pool] = Math.max(0, poolTokens[pool] + count);
        }

        /** {@code requests, tokens}, then each pool's, as {@link ModelCounters#read} wants them. */
        long[] fields() {
            long[] fields = new long[2 + 2 * poolRequests.length];
            fields[0] = requests;
            fields[1] = tokens;
            for (int i = 0; i < poolRequests.length; i++) {
                fields[2 + 2 * i] = poolRequests[i];
                fields[3 + 2 * i] = poolTokens[i];
            }
            return fields;
        }

        void clear() {
            requests = 0;
            tokens = 0;
            Arrays.fill(poolRequests, 0);
            Arrays.fill(poolTokens, 0);
        }
    }

    /** The live and the previous window of one model; guarded by its own monitor. */
    private static final class ModelWindow {
        long end = Long.MIN_VALUE;
        Counts current;
        Counts previous;

        ModelWindow(int pools) {
            current = new Counts(pools);
            previous = new Counts(pools);
        }

        /** Starts the window {@code now} lies in when the live one has ended (see {@link CounterStore}). */
        void roll(long now, DecisionPlan plan) {
            if (now < end) {
                return;
            }
            long window = plan.windowMillis();
            Counts ended = current;
            current = previous;
            current.clear();
            previous = ended;
            if (plan.slidingWindow() && now < end + window) {
                end += window;
            } else {
                previous.clear();
                end = now + window;
            }
        }

        /** The counters of the window that ends at {@code windowEnd}, or {@code null} if it no longer counts. */
        Counts countsOf(long windowEnd, long now, DecisionPlan plan) {
            long window = plan.windowMillis();
            if (windowEnd == end && (now < end || plan.slidingWindow() && now < end + window)) {
                return current;
            }
            if (plan.slidingWindow() && windowEnd == end - window && now < end) {
                return previous;
            }
            return null;
        }
    }
}
