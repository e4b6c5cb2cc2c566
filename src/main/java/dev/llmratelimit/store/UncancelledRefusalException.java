package dev.llmratelimit.store;

import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.engine.Verdict;

/**
 * A refusal whose earlier parts are still counted: a store that decides a plan in several calls
 * (one per Redis Cluster hash slot) counted the earlier ones, a later one refused, and the cancel
 * of the earlier ones got no answer. The refusal stands; the plan's cancel must be sent again
 * until the store confirms it ({@link CompensatingAdmissionStore} queues it).
 */
public final class UncancelledRefusalException extends StoreUnavailableException {

    private final transient Verdict refusal;

    public UncancelledRefusalException(Verdict refusal, StoreUnavailableException cancelFailure) {
        super("A refused decision's earlier hash slots could not be cancelled: " + cancelFailure.getMessage(), cancelFailure);
        this.refusal = refusal;
    }

    /** The refusal to answer. */
    public Verdict refusal() {
        return refusal;
    }
}
