package dev.llmratelimit.engine;

/**
 * What an admitted request holds of its caller's counters until it finishes: the caller's tokens
 * are recorded and its parallel slots given back. The {@link Admission} calls {@link #finish} once.
 */
final class CallerTicket {

    private static final ThrottledLog FAILURES = new ThrottledLog(CallerTicket.class, System.Logger.Level.WARNING);

    private final CallerPlan plan;
    private final CallerHold hold;
    private final CallerLimitStore store;

    CallerTicket(CallerPlan plan, CallerHold hold, CallerLimitStore store) {
        this.plan = plan;
        this.hold = hold;
        this.store = store;
    }

    /** Records the response's tokens (0 for none) and releases the slots; a failing store only logs. */
    void finish(long tokens) {
        try {
            if (tokens > 0 && plan.limitsTokens()) {
                store.record(plan, tokens);
            }
        } catch (StoreUnavailableException e) {
            FAILURES.log("Could not record " + tokens + " tokens on a caller's counters", e);
        }
        try {
            store.release(plan, hold);
        } catch (StoreUnavailableException e) {
            FAILURES.log("Could not release a caller's parallel slot; it expires with its lease", e);
        }
    }

    /** Undoes the acquisition of a request the model decision refused. */
    void compensate() {
        try {
            store.compensate(plan, hold);
        } catch (StoreUnavailableException e) {
            FAILURES.log("Could not undo a caller acquisition; its request counts until the window ends"
                    + " and its slot until the lease ends", e);
        }
    }
}
