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
import java.util.concurrent.locks.ReentrantLock;

/**
 * Makes sure a settlement the store did not confirm is applied after all, and that decisions are
 * made on counters those settlements already corrected. A settlement whose answer never came (a
 * timeout is not a failure: it may still run) is queued as it is, and so is the cancel of a
 * refused request whose decision got no answer, which is queued at once while the store is
 * failing (sending it would only add a timeout). The queue is sent, oldest first, before the next
 * call once the store answers again, so a caller whose slots a stalled store took is served as
 * soon as the store is back; a decision that was refused while settlements were still owed is made
 * again once they have landed, since the refusal may be theirs (a refused decision counted
 * nothing), unless its own cancel had to be queued (its refusal stands). A request waits for one
 * store call that gets no answer at most: when sending the queue fails, its own call is not made
 * (a decision fails as the store failure it is, a settlement joins the queue).
 */
public final class CompensatingAdmissionStore implements AdmissionStore {

    /** Pending settlements sent before one call, at most: recovery costs a few round trips, not thousands. */
    static final int DRAIN_PER_CALL = 64;
    private static final int UNREACHABLE = -1;

    private static final ThrottledLog FATES = new ThrottledLog(CompensatingAdmissionStore.class, System.Logger.Level.WARNING);

    private final AdmissionStore delegate;
    private final PendingCompensations pending;
    private final Clock clock;
    private final String storeName;
    /** One thread sends the queue at a time; another that needs it sent waits for it. */
    private final ReentrantLock sending = new ReentrantLock();
    /** Whether the last call reached the store: only then is the queue sent before a call. */
    private volatile boolean healthy = true;

    public CompensatingAdmissionStore(AdmissionStore delegate, PendingCompensations pending, Clock clock) {
        this(delegate, pending, clock, "counter store");
    }

    /** @param storeName names the store in logs ({@code counter store}, {@code budget store}) */
    public CompensatingAdmissionStore(AdmissionStore delegate, PendingCompensations pending, Clock clock,
                                      String storeName) {
        this.delegate = delegate;
        this.pending = pending;
        this.clock = clock;
        this.storeName = storeName;
    }

    @Override
    public Verdict decide(Plan plan) {
        if (healthy && drain() == UNREACHABLE) {
            // The store stopped answering while the queue was sent: a second call would only add its timeout.
            throw StoreUnavailableException.notRun("The " + storeName + " did not answer a pending compensation");
        }
        boolean recovering = !healthy;
        boolean owed = owed();
        Decided decided = decideOnce(plan);
        if (decided.cancelQueued()) {
            return decided.verdict();    // this request waited for one call without answer: the queue goes with a later one
        }
        healthy = true;
        if (recovering || owed) {
            int applied = drain();
            if (!decided.verdict().admitted() && applied != UNREACHABLE && (applied > 0 || owed)) {
                decided = decideOnce(plan);
            }
        }
        return decided.verdict();
    }

    /**
     * A verdict, and whether the plan's own cancel was queued with it (the cancel got no answer):
     * that refusal stands, since its cancel finishes the request id (a decision made again under it
     * would not run).
     */
    private record Decided(Verdict verdict, boolean cancelQueued) {
    }

    /** Whether settlements are waiting to be sent, or being sent by another thread. */
    private boolean owed() {
        return !pending.isEmpty() || sending.isLocked();
    }

    private Decided decideOnce(Plan plan) {
        try {
            return new Decided(delegate.decide(plan), false);
        } catch (UncancelledRefusalException e) {
            healthy = false;
            queue(plan, Settlement.CANCEL, "a refusal whose earlier hash slots stayed counted");
            return new Decided(e.refusal(), true);
        } catch (StoreUnavailableException e) {
            healthy = false;
            throw e;
        }
    }

    @Override
    public void settle(Plan plan, Settlement settlement) {
        if (!healthy && settlement.cancel()) {
            queue(plan, settlement, "a refused request while the store does not answer");
            return;
        }
        if (healthy && drain() == UNREACHABLE) {
            queue(plan, settlement, "a settlement while the store does not answer");
            return;
        }
        try {
            delegate.settle(plan, settlement);
            healthy = true;
        } catch (StoreUnavailableException e) {
            healthy = false;
            queue(plan, settlement, "a settlement without answer");
        }
    }

    private void queue(Plan plan, Settlement settlement, String what) {
        pending.add(plan, settlement, clock.millis());
        FATES.log("Queued the " + (settlement.cancel() ? "cancel" : "settlement") + " of " + what
                + " until the " + storeName + " answers again (" + pending.size() + " pending, "
                + pending.count(PendingCompensations.Fate.DROPPED) + " dropped, "
                + pending.count(PendingCompensations.Fate.EXPIRED) + " expired so far)", null);
    }

    /**
     * Sends pending settlements until one gets no answer (the store is still away) or the batch is
     * done, after any sending in progress on another thread; one refused at once goes to the back
     * of the queue. Returns how many were applied, or {@link #UNREACHABLE} when one got no answer.
     */
    private int drain() {
        if (!owed()) {
            return 0;
        }
        sending.lock();
        try {
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
                } catch (StoreUnavailableException e) {
                    if (e.mayHaveRun()) {
                        pending.retryLater(entry);
                        healthy = false;
                        return UNREACHABLE;
                    }
                    // Refused at once (its node's circuit is open, or the store is full): it cost no
                    // wait, and entries for other nodes may still go through.
                    pending.retryAfterOthers(entry);
                } catch (RuntimeException e) {
                    pending.retryLater(entry);
                    healthy = false;
                    return UNREACHABLE;
                }
            }
            return applied;
        } finally {
            sending.unlock();
        }
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

    /** Sends what is still queued, while the store answers, before closing it: a stop leaves nothing held. */
    @Override
    public void close() {
        try {
            for (int sent = 0; sent < pending.size() + DRAIN_PER_CALL && !pending.isEmpty(); sent += DRAIN_PER_CALL) {
                if (drain() == UNREACHABLE) {
                    break;
                }
            }
        } finally {
            delegate.close();
        }
    }
}
