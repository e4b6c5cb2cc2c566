package dev.llmratelimit.engine;

import dev.llmratelimit.usage.Usage;

/**
 * What the engine tells about its work, for metrics and the status page: every decision, every
 * settlement with usage, every store operation that failed. Called on the request thread, so an
 * implementation must be quick and must not throw; {@link #NONE} does nothing.
 */
public interface DecisionObserver {

    DecisionObserver NONE = new DecisionObserver() {
        @Override
        public boolean timesDecisions() {
            return false;
        }
    };

    /** The elapsed time of a decision nobody {@linkplain #timesDecisions times}: the clock was not read for it. */
    long UNTIMED = -1;

    /**
     * One decision has been made.
     *
     * @param admission    the ticket the decision produced (its outcome, plan and verdict)
     * @param elapsedNanos how long the decision took, store round trip included; {@link #UNTIMED}
     *                     unless an observer {@linkplain #timesDecisions times decisions}
     */
    default void decided(Admission admission, long elapsedNanos) {
    }

    /**
     * Whether {@link #decided} uses the elapsed time. An observer that ignores it says {@code false},
     * which spares every decision two clock reads when no other observer wants the time either.
     */
    default boolean timesDecisions() {
        return true;
    }

    /** An admitted request finished with this usage (the tokens of its response, not the estimate). */
    default void recorded(Plan plan, Usage usage) {
    }

    /** A store operation failed (timed out, lost its connection, or was skipped by an open circuit). */
    default void storeFailed(StoreOperation operation) {
    }

    /** Both observers, in this order. */
    static DecisionObserver both(DecisionObserver first, DecisionObserver second) {
        if (first == NONE) {
            return second;
        }
        if (second == NONE) {
            return first;
        }
        return new DecisionObserver() {
            @Override
            public void decided(Admission admission, long elapsedNanos) {
                first.decided(admission, elapsedNanos);
                second.decided(admission, elapsedNanos);
            }

            @Override
            public boolean timesDecisions() {
                return first.timesDecisions() || second.timesDecisions();
            }

            @Override
            public void recorded(Plan plan, Usage usage) {
                first.recorded(plan, usage);
                second.recorded(plan, usage);
            }

            @Override
            public void storeFailed(StoreOperation operation) {
                first.storeFailed(operation);
                second.storeFailed(operation);
            }
        };
    }

    /** The store operations a request runs. */
    enum StoreOperation {
        /** The decision before the call (every counter group of the plan). */
        DECIDE("decide"),
        /** Settling the plan after the call: usage, reservations, parallel slots. */
        RECORD("record"),
        /** Reading counters for the status page or the gauges. */
        SNAPSHOT("snapshot");

        private final String label;

        StoreOperation(String label) {
            this.label = label;
        }

        /** The name in metrics and on the status page. */
        public String label() {
            return label;
        }
    }
}
