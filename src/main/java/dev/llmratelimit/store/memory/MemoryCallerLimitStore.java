package dev.llmratelimit.store.memory;

import dev.llmratelimit.engine.CallerCounter;
import dev.llmratelimit.engine.CallerHold;
import dev.llmratelimit.engine.CallerLimitStore;
import dev.llmratelimit.engine.CallerLimitType;
import dev.llmratelimit.engine.CallerPlan;
import dev.llmratelimit.engine.CallerRefusal;
import dev.llmratelimit.engine.CallerVerdict;

import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-caller counters in this JVM's memory. One lock for all of them: an acquisition checks up to
 * three scopes at once, all or nothing, and holds the lock only for a few map look-ups. Counters
 * whose window ended and that hold no live slot are dropped every {@value #SWEEP_EVERY}
 * acquisitions, so memory is bounded by the callers active in one window.
 */
public final class MemoryCallerLimitStore implements CallerLimitStore {

    static final int SWEEP_EVERY = 4096;

    private final Clock clock;
    private final Map<String, Counter> counters = new HashMap<>();
    private long nextSlot;
    private int untilSweep = SWEEP_EVERY;

    public MemoryCallerLimitStore(Clock clock) {
        this.clock = clock;
    }

    public MemoryCallerLimitStore() {
        this(Clock.systemUTC());
    }

    @Override
    public CallerVerdict acquire(CallerPlan plan) {
        long now = clock.millis();
        List<CallerCounter> planned = plan.counters();
        synchronized (this) {
            if (--untilSweep == 0) {
                sweep(now);
            }
            for (CallerCounter planCounter : planned) {
                CallerRefusal refusal = check(planCounter, counters.get(keyOf(planCounter)), now);
                if (refusal != null) {
                    return CallerVerdict.refused(refusal);
                }
            }
            String slotId = plan.limitsParallel() ? Long.toString(++nextSlot) : null;
            long[] windowEnds = new long[planned.size()];
            for (int i = 0; i < planned.size(); i++) {
                CallerCounter planCounter = planned.get(i);
                Counter counter = counters.computeIfAbsent(keyOf(planCounter), k -> new Counter());
                if (planCounter.countsWindow()) {
                    counter.rollIfExpired(now, plan.windowMillis());
                    counter.requests++;
                    windowEnds[i] = counter.end;
                }
                if (planCounter.maxParallelRequests() > 0) {
                    counter.slots.put(slotId, now + plan.leaseMillis());
                }
            }
            return CallerVerdict.admitted(new CallerHold(slotId, windowEnds));
        }
    }

    private static CallerRefusal check(CallerCounter planCounter, Counter counter, long now) {
        boolean live = counter != null && now < counter.end;
        long requests = live ? counter.requests : 0;
        long tokens = live ? counter.tokens : 0;
        long reset = live ? counter.end - now : 0;
        if (planCounter.rpmLimit() > 0 && requests + 1 > planCounter.rpmLimit()) {
            return new CallerRefusal(planCounter, CallerLimitType.REQUESTS, planCounter.rpmLimit(), requests, reset);
        }
        if (planCounter.tpmLimit() > 0 && tokens >= planCounter.tpmLimit()) {
            return new CallerRefusal(planCounter, CallerLimitType.TOKENS, planCounter.tpmLimit(), tokens, reset);
        }
        if (planCounter.maxParallelRequests() > 0 && counter != null) {
            counter.slots.values().removeIf(leaseEnd -> leaseEnd <= now);
            int inFlight = counter.slots.size();
            if (inFlight + 1 > planCounter.maxParallelRequests()) {
                return new CallerRefusal(planCounter, CallerLimitType.PARALLEL_REQUESTS,
                        planCounter.maxParallelRequests(), inFlight, 0);
            }
        }
        return null;
    }

    @Override
    public void release(CallerPlan plan, CallerHold hold) {
        if (hold.slotId() == null) {
            return;
        }
        synchronized (this) {
            for (CallerCounter planCounter : plan.counters()) {
                Counter counter = planCounter.maxParallelRequests() > 0 ? counters.get(keyOf(planCounter)) : null;
                if (counter != null) {
                    counter.slots.remove(hold.slotId());
                }
            }
        }
    }

    @Override
    public void record(CallerPlan plan, long tokens) {
        long now = clock.millis();
        synchronized (this) {
            for (CallerCounter planCounter : plan.counters()) {
                if (planCounter.tpmLimit() > 0) {
                    Counter counter = counters.computeIfAbsent(keyOf(planCounter), k -> new Counter());
                    counter.rollIfExpired(now, plan.windowMillis());
                    counter.tokens += tokens;
                }
            }
        }
    }

    @Override
    public void compensate(CallerPlan plan, CallerHold hold) {
        release(plan, hold);
        synchronized (this) {
            List<CallerCounter> planned = plan.counters();
            for (int i = 0; i < planned.size(); i++) {
                Counter counter = counters.get(keyOf(planned.get(i)));
                if (counter != null && hold.windowEnd(i) != 0 && counter.end == hold.windowEnd(i)) {
                    counter.requests--;
                }
            }
        }
    }

    /** Counters kept, for tests of the memory bound. */
    synchronized int size() {
        return counters.size();
    }

    private void sweep(long now) {
        untilSweep = SWEEP_EVERY;
        counters.values().removeIf(counter -> {
            counter.slots.values().removeIf(leaseEnd -> leaseEnd <= now);
            return now >= counter.end && counter.slots.isEmpty();
        });
    }

    /** Scope letter and identity: the scopes of one name never share a counter. */
    private static String keyOf(CallerCounter counter) {
        return counter.scope().code() + counter.id();
    }

    /** One scope identity's window and slots; guarded by the store's monitor. */
    private static final class Counter {
        long end = Long.MIN_VALUE;
        long requests;
        long tokens;
        /** Slot id to lease end. */
        final Map<String, Long> slots = new HashMap<>(4);

        void rollIfExpired(long now, long windowMillis) {
            if (now < end) {
                return;
            }
            end = now + windowMillis;
            requests = 0;
            tokens = 0;
        }
    }
}
