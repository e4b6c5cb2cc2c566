package dev.llmratelimit.engine;

import java.util.List;

/**
 * Adds counter groups of another limit kind (budgets) to the plan of every request, for configured
 * and unconfigured models alike (a budget applies to every model). The groups are checked after the
 * engine's own and counted all or nothing with them, in the same store call.
 */
public interface PlanExtension {

    /**
     * @param request the request
     * @param tokens  its token estimate (prompt and expected output), for worst-case costs
     * @return the groups to add (empty for none) and the cost of a response's usage for them
     */
    Contribution contribute(AdmissionRequest request, TokenEstimate tokens);

    /**
     * What one extension adds to one plan.
     *
     * @param unpriced the request is subject to a budget that cannot be enforced (its model has no
     *                 price): it is refused before any store call ({@link Admission.Outcome#UNPRICED_MODEL})
     */
    record Contribution(List<CounterGroup> groups, UsageCost cost, boolean unpriced) {

        public static final Contribution NONE = new Contribution(List.of(), null, false);
        public static final Contribution UNPRICED = new Contribution(List.of(), null, true);

        /** A plan list is kept as it is (immutable, and what stores compiled for it stays with it). */
        public Contribution {
            groups = groups instanceof PlanGroups kept ? kept : List.copyOf(groups);
        }

        public Contribution(List<CounterGroup> groups, UsageCost cost) {
            this(groups, cost, false);
        }
    }

    /** A request's expected tokens, counted only on demand (the prompt may need a tokenizer). */
    interface TokenEstimate {

        /** The prompt's tokens, or their free upper bound where the engine expects a refusal anyway. */
        long promptTokens();

        /** The expected completion tokens of all choices: {@code max_tokens} or the model's expectation. */
        long outputTokens();
    }
}
