package dev.llmratelimit.store;

import dev.llmratelimit.engine.CounterGroup;
import java.util.List;
import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.ModelCounters;
import dev.llmratelimit.engine.ModelGroups;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.Settlement;
import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.engine.ThrottledLog;
import dev.llmratelimit.engine.Verdict;

import java.time.Clock;

/**
 * Makes sure a decision nobody acted on counts nothing, and that a settlement that timed out is
 * applied after all. A decision whose answer never came may still run on the store (a timeout is
 * not a failure): its request id is queued for a {@link Settlement#CANCEL}, which takes back what
 * it applied or leaves a tombstone it obeys. A settlement that timed out is queued as it is. The
 * queue is sent, oldest first, before the next call once the store answers again, so a caller
 * whose slots a stalled store took is served as soon as the store is back. A request waits for
 * one store call that gets no answer at most: when sending the queue fails, its own call is not
 * made (a decision fails as the store failure it is, a settlement joins the queue).
 */
public final class CompensatingAdmissionStore implements AdmissionStore {

    /** Pending settlements sent before one call, at most: recovery costs a few round trips, not thousands. */
    static final int DRAIN_PER_CALL = 64;
    private static final int UNREACHABLE = -1;

    private static final ThrottledLog FATES = new ThrottledLog(CompensatingAdmissionStore.class, System.Logger.Level.WARNING);

    private final AdmissionStore delegate;
    private final PendingCompensations pending;
    private final Clock clock;
    /** Whether the last call reached the store: only then is the queue sent before a call. */
    private volatile boolean healthy = true;

    public CompensatingAdmissionStore(AdmissionStore delegate, PendingCompensations pending, Clock clock) {
        this.delegate = delegate;
        this.pending = pending;
        this.clock = clock;
    }

    @Override
    public Verdict decide(Plan plan) {
        if (healthy && drain() == UNREACHABLE) {
            // The store stopped answering while the queue was sent: a second call would only add its timeout.
            throw StoreUnavailableException.notRun("The store did not answer a pending compensation");
        }
        Verdict verdict = decideOnce(plan);
        if (!healthy) {
            // The store is back: give back what the decisions it ran late took, then decide again
            // if this one was refused, since the refusal may be theirs (a refused decision counted nothing).
            healthy = true;
            if (!pending.isEmpty() && drain() > 0 && !verdict.admitted()) {
                verdict = decideOnce(plan);
            }
        }
        return verdict;
    }

    /** One decision; one that may have run without its answer arriving is queued to be cancelled. */
    private Verdict decideOnce(Plan plan) {
        try {
            return delegate.decide(plan);
        } catch (StoreUnavailableException e) {
            failed();
            if (e.mayHaveRun()) {
                queue(plan, Settlement.CANCEL, "a decision without answer");
            }
            throw e;
        } catch (RuntimeException e) {
            queue(plan, Settlement.CANCEL, "a decision that failed unexpectedly");
            throw e;
        }
    }

    private void failed() {
        healthy = false;
    }

    @Override
    public void settle(Plan plan, Settlement settlement) {
        if (healthy && drain() == UNREACHABLE) {
            queue(plan, settlement, "a settlement while the store does not answer");
            return;
        }
        try {
            delegate.settle(plan, settlement);
            healthy = true;
        } catch (StoreUnavailableException e) {
            failed();
            queue(plan, settlement, "a settlement without answer");
        }
    }

    private void queue(Plan plan, Settlement settlement, String what) {
        pending.add(plan, settlement, clock.millis());
        FATES.log("Queued the " + (settlement.cancel() ? "cancel" : "settlement") + " of " + what
                + " until the store answers again (" + pending.size() + " pending, "
                + pending.count(PendingCompensations.Fate.DROPPED) + " dropped, "
                + pending.count(PendingCompensations.Fate.EXPIRED) + " expired so far)", null);
    }

    /**
     * Sends pending settlements until one fails (the store is still away) or the batch is done;
     * returns how many were applied, or {@link #UNREACHABLE} when one got no answer.
     */
    private int drain() {
        int applied = 0;
        for (int i = 0; i < DRAIN_PER_CALL && !pending.isEmpty(); i++) {
            PendingCompensations.Entry entry = pending.next(clock.millis());
            if (entry == null) {
                break;
            }
            try {
                delegate.settle(entry.plan(), entry.settlement());
                pending.applied();
                applied++;
            } catch (RuntimeException e) {
                pending.retryLater(entry);
                failed();
                return UNREACHABLE;
            }
        }
        return applied;
    }

    @Override
    public ModelCounters snapshot(ModelGroups model) {
        return delegate.snapshot(model);
    }

    @Override
    public long[][] budgets(List<CounterGroup> groups) {
        return delegate.budgets(groups);
    }

    /** The queue, for metrics: how many are pending and what became of the others. */
    public PendingCompensations pending() {
        return pending;
    }

    @Override
    public void close() {
        delegate.close();
    }
}
