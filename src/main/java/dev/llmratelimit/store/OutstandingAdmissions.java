package dev.llmratelimit.store;

import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.ModelCounters;
import dev.llmratelimit.engine.ModelGroups;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.RequestId;
import dev.llmratelimit.engine.Settlement;
import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.store.jdbc.JdbcAdmissionStore;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every decision not yet settled, so that a stop leaves nothing held in the store: {@link #stop}
 * refuses new decisions (503, whatever {@code on-store-failure} says), lets the calls in flight
 * finish for a grace period, then settles each one still outstanding as a success of unknown usage
 * (its reservation kept as the charge, its slots released; a decision without answer counted).
 * A settlement of a decision the stop settled changes nothing. A decision the store certainly never
 * ran holds nothing: it is not tracked (refused fail-closed, nobody settles it; served fail-open,
 * its own settlement records it). Over a store that ends with this JVM ({@link
 * AdmissionStore#outlivesThisJvm()} false: the memory store) nothing is tracked or waited for:
 * the stop only refuses new decisions. A decision whose lease ended is forgotten (the store let go
 * of what it held then), one with a budget only once the budget database no longer charges its
 * settlement: one the application never settles costs memory for that long at most.
 */
public final class OutstandingAdmissions implements AdmissionStore {

    private static final System.Logger LOG = System.getLogger(OutstandingAdmissions.class.getName());

    /**
     * How often decisions whose lease ended are looked for (each look walks every outstanding
     * decision); also the margin a decision is kept past its lease, for a store whose clock runs
     * behind this one or a decision that ran late.
     */
    static final long FORGET_EVERY_MILLIS = 10_000;

    /**
     * A decision that may hold something in the store; {@code unanswered}: its answer never came;
     * {@code forgetAt}: when nothing the store would do for its settlement is left (engine clock, ms).
     */
    private record Outstanding(Plan plan, boolean unanswered, long forgetAt) {

        /** A budget database still charges a settlement a day after the lease. */
        static Outstanding decidedAt(long decidedAt, Plan plan, boolean unanswered) {
            return new Outstanding(plan, unanswered, decidedAt + plan.leaseMillis() + FORGET_EVERY_MILLIS
                    + (plan.groups().hasBudgets() ? JdbcAdmissionStore.RETENTION_MILLIS : 0));
        }
    }

    private final AdmissionStore delegate;
    private final Map<RequestId, Outstanding> outstanding = new ConcurrentHashMap<>();
    /** Decisions the stop settled itself: their own settlement, when it comes, is dropped. */
    private final Set<RequestId> settledAtStop = ConcurrentHashMap.newKeySet();
    /** Decisions under way: the stop waits for them too, since each may add an outstanding one. */
    private final AtomicInteger deciding = new AtomicInteger();
    private final boolean tracks;
    private final AtomicLong nextForget = new AtomicLong();
    /** Held while forgetting, and while the stop settles what is left. */
    private final Object stopSettling = new Object();
    private volatile boolean stopping;

    public OutstandingAdmissions(AdmissionStore delegate) {
        this.delegate = delegate;
        this.tracks = delegate.outlivesThisJvm();
    }

    @Override
    public Verdict decide(Plan plan) {
        return decide(plan, null, 0);
    }

    /** Passes the caller's clock reading on ({@code clock == null}: none). */
    @Override
    public Verdict decide(Plan plan, Clock clock, long now) {
        if (!tracks) {
            if (stopping) {
                throw stoppingNow();
            }
            return decided(plan, clock, now);
        }
        deciding.incrementAndGet();          // before the check, so a stop that began sees this decision or refuses it
        try {
            if (stopping) {
                throw stoppingNow();
            }
            long decidedAt = clock == null ? System.currentTimeMillis() : now;
            forgetEndedLeases(decidedAt);
            Verdict verdict;
            try {
                verdict = decided(plan, clock, now);
            } catch (StoreUnavailableException e) {
                if (e.mayHaveRun()) {                          // served (fail-open) or cancelled: settled either way
                    outstanding.put(plan.id(), Outstanding.decidedAt(decidedAt, plan, true));
                }
                throw e;
            }
            if (verdict.admitted()) {
                outstanding.put(plan.id(), Outstanding.decidedAt(decidedAt, plan, false));
            }
            return verdict;
        } finally {
            deciding.decrementAndGet();
        }
    }

    /**
     * Drops, at most once per {@link #FORGET_EVERY_MILLIS}, the decisions the store no longer does
     * anything for; their own settlement, if it ever comes, still goes through. Never while the stop
     * settles: a decision it marked as its own must be settled by it.
     */
    private void forgetEndedLeases(long now) {
        long next = nextForget.get();
        if (now < next || !nextForget.compareAndSet(next, now + FORGET_EVERY_MILLIS)) {
            return;
        }
        synchronized (stopSettling) {
            if (!stopping) {
                outstanding.values().removeIf(left -> left.forgetAt() <= now);
            }
        }
    }

    private Verdict decided(Plan plan, Clock clock, long now) {
        return clock == null ? delegate.decide(plan) : delegate.decide(plan, clock, now);
    }

    private static StoreUnavailableException stoppingNow() {
        return StoreUnavailableException.stopping("The rate limiter is stopping and admits no new request");
    }

    /** Whoever removes a decision settles it: its call, or the stop; the stop marks its own first. */
    @Override
    public void settle(Plan plan, Settlement settlement) {
        settle(plan, settlement, null, 0);
    }

    /** Passes the caller's clock reading on ({@code clock == null}: none). */
    @Override
    public void settle(Plan plan, Settlement settlement, Clock clock, long now) {
        if (!tracks || outstanding.remove(plan.id()) != null || !settledAtStop.contains(plan.id())) {
            if (clock == null) {
                delegate.settle(plan, settlement);
            } else {
                delegate.settle(plan, settlement, clock, now);
            }
        }
    }

    /** Decisions not settled yet. */
    public int size() {
        return outstanding.size();
    }

    /**
     * Refuses new decisions, waits up to {@code grace} for the calls in flight to finish, then
     * settles the rest; returns how many it settled itself.
     */
    public int stop(Duration grace) {
        stopping = true;
        if (!tracks) {
            return 0;
        }
        long deadline = System.nanoTime() + grace.toNanos();
        while ((deciding.get() > 0 || !outstanding.isEmpty()) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        int settled = 0;
        synchronized (stopSettling) {
            for (RequestId requestId : outstanding.keySet()) {
                settledAtStop.add(requestId);
                Outstanding left = outstanding.remove(requestId);
                if (left == null) {
                    continue;                                // finished meanwhile
                }
                Settlement kept = new Settlement(Settlement.KEEP, Settlement.KEEP, false, false);
                try {
                    delegate.settle(left.plan(), left.unanswered() ? kept.asUnanswered() : kept);
                    settled++;
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "Could not settle a call still in flight at stop; its slots and"
                            + " reservation end with their lease: " + e.getMessage());
                }
            }
        }
        if (settled > 0) {
            LOG.log(System.Logger.Level.WARNING, "Stopped with " + settled + " call(s) still in flight after the grace"
                    + " period of " + grace + ": settled with their reservations as the charge");
        }
        return settled;
    }

    @Override
    public ModelCounters snapshot(ModelGroups model) {
        return delegate.snapshot(model);
    }

    @Override
    public long[][] budgets(List<CounterGroup> groups) {
        return delegate.budgets(groups);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
