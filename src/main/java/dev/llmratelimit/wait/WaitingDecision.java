package dev.llmratelimit.wait;

import java.time.Clock;
import java.util.concurrent.CompletableFuture;

/**
 * A refused decision waiting in the {@link WaitRoom}: its {@link #outcome()} completes with the first
 * decision that admits it, or with the last refusal once its time is up. A waiter that leaves
 * ({@link #leave()}) is cancelled; a decision that admitted it while it left is given back, so
 * nothing stays counted for a request nobody runs.
 *
 * @param <D> the decision (an admission, or a choice over fallback models)
 */
public final class WaitingDecision<D> implements WaitRoom.Waiter {

    /** How a waiter is decided again and what a decision says. */
    public interface Decider<D> {

        D decide();

        boolean admits(D decision);

        /** What refused it: later waiters refused by the same group are not asked again in one pass. */
        Object refusingGroup(D decision);

        /** When the refusal would clear if nothing else happened. */
        long clearsInMillis(D decision);

        /** Gives back what an admitting decision acquired, for a waiter that left meanwhile. */
        void giveBack(D decision);
    }

    private final Decider<D> decider;
    private final int rank;
    private final Clock clock;
    private final long startedAt;
    private final long deadline;
    private final long bytes;
    private final Object caller;
    private final CompletableFuture<D> outcome = new CompletableFuture<>();
    private volatile D lastRefusal;
    private final WaitRoom.Ticket ticket;

    private WaitingDecision(WaitRoom room, D refusal, Decider<D> decider, int rank, Clock clock, long maxWaitMillis,
                            long bytes, Object caller) {
        this.bytes = bytes;
        this.caller = caller;
        this.lastRefusal = refusal;
        this.decider = decider;
        this.rank = rank;
        this.clock = clock;
        this.startedAt = clock.millis();
        this.deadline = startedAt + maxWaitMillis;
        this.ticket = room.ticketFor(this);      // known before any pass can decide this waiter
    }

    /** Enters the room with a refused decision, holding nothing countable for nobody in particular. */
    public static <D> WaitingDecision<D> enter(WaitRoom room, D refusal, Decider<D> decider, int rank, Clock clock,
                                               long maxWaitMillis) {
        return enter(room, refusal, decider, rank, clock, maxWaitMillis, 0, null);
    }

    /**
     * Enters the room with a refused decision; {@code null} when it does not fit (the room's waiters,
     * bytes, or this caller's share).
     *
     * @param bytes  what the waiter holds while it waits (its request body)
     * @param caller whose request it is; {@code null} for nobody in particular
     */
    public static <D> WaitingDecision<D> enter(WaitRoom room, D refusal, Decider<D> decider, int rank, Clock clock,
                                               long maxWaitMillis, long bytes, Object caller) {
        WaitingDecision<D> waiting = new WaitingDecision<>(room, refusal, decider, rank, clock, maxWaitMillis, bytes, caller);
        return room.enter(waiting.ticket, decider.clearsInMillis(refusal)) ? waiting : null;
    }

    /**
     * Completes with an admitting decision, or with the last refusal when the wait is over; cancelled
     * when left; completed exceptionally with the failure when deciding again failed.
     */
    public CompletableFuture<D> outcome() {
        return outcome;
    }

    /** Milliseconds since the wait began. */
    public long waitedMillis() {
        return clock.millis() - startedAt;
    }

    /** Milliseconds until the wait ends in a refusal. */
    public long millisLeft() {
        return Math.max(0, deadline - clock.millis());
    }

    /** The client went away: out of the room, and nothing kept for it. */
    public void leave() {
        ticket.leave();
        outcome.cancel(false);
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public long deadlineMillis() {
        return deadline;
    }

    @Override
    public long bytes() {
        return bytes;
    }

    @Override
    public Object caller() {
        return caller;
    }

    @Override
    public WaitRoom.Refusal attempt() {
        if (outcome.isDone()) {
            return null;
        }
        D decision = decider.decide();
        if (!decider.admits(decision)) {
            lastRefusal = decision;
            return new WaitRoom.Refusal(decider.refusingGroup(decision), decider.clearsInMillis(decision));
        }
        ticket.leave();                 // out of the room before anyone sees the outcome
        if (!outcome.complete(decision)) {
            decider.giveBack(decision);
        }
        return null;
    }

    @Override
    public void expire() {
        ticket.leave();
        outcome.complete(lastRefusal);
    }

    @Override
    public void fail(RuntimeException failure) {
        ticket.leave();
        outcome.completeExceptionally(failure);
    }
}
