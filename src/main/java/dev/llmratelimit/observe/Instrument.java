package dev.llmratelimit.observe;

/**
 * The library's meters (docs/observability.md lists them): one name, unit and description each, the
 * same whichever metrics API carries them (OpenTelemetry, Micrometer).
 */
public enum Instrument {

    DECISIONS("llm_ratelimit.decisions", "{decision}",
            "Rate-limit decisions by model, pool, outcome, refusing limit, mode and shadow"),
    DECISION_DURATION("llm_ratelimit.decision.duration", "s", "Time to decide one request, store round trip included"),
    TOKENS("llm_ratelimit.tokens", "{token}", "Tokens of admitted responses, as recorded after the call"),
    SPEND("llm_ratelimit.spend", "{microdollar}", "Money charged to budgets, in micro-dollars"),
    SOFT_BUDGETS_REACHED("llm_ratelimit.budget.soft_reached", "{budget}",
            "Soft budgets reached, once per budget and period on each instance"),
    STORE_FAILURES("llm_ratelimit.store.failures", "{failure}",
            "Counter store operations that failed or were skipped by an open circuit"),
    INTERNAL_ERRORS("llm_ratelimit.internal_errors", "{request}",
            "Requests the limiter failed on, by entry point (on-internal-error says what they got)"),
    CIRCUIT_OPEN("llm_ratelimit.store.circuit.open", "1", "1 while the circuit keeps calls from the store, else 0"),
    COMPENSATIONS_PENDING("llm_ratelimit.store.compensations.pending", "{settlement}",
            "Settlements and cancels waiting for the store to answer again"),
    COMPENSATIONS("llm_ratelimit.store.compensations", "{settlement}",
            "Unconfirmed settlements by fate: queued, applied, expired (lease over), dropped (queue full)"),
    LOCAL_DECISIONS("llm_ratelimit.store.local_decisions", "{decision}",
            "Decisions made on this instance's share of every limit while the shared store did not answer"),
    SATURATION("llm_ratelimit.model.saturation.ratio", "1", "The highest use of any limit of the model, in every window"),
    STRICT("llm_ratelimit.model.strict", "1", "1 while pool limits are enforced (saturation at or above the threshold)"),
    WINDOW_REMAINING("llm_ratelimit.window.remaining", "s", "Time left in the model's live window"),
    POOL_REQUESTS("llm_ratelimit.pool.requests", "{request}", "Requests counted in the pool's live window"),
    POOL_TOKENS("llm_ratelimit.pool.tokens", "{token}", "Tokens counted in the pool's live window"),
    POOL_REQUESTS_LIMIT("llm_ratelimit.pool.requests.limit", "{request}", "The pool's request limit in strict mode"),
    POOL_TOKENS_LIMIT("llm_ratelimit.pool.tokens.limit", "{token}", "The pool's token limit in strict mode"),
    POOL_ACTIVE("llm_ratelimit.pool.active", "1",
            "1 while the pool asked within the window (work-conserving fairness), else 0"),
    LIMIT_USED("llm_ratelimit.limit.used", "{count}",
            "Counted against each limit of a model (pool: the pool's part) in its live window"),
    LIMIT_CAPACITY("llm_ratelimit.limit.capacity", "{count}",
            "Each limit of a model (pool: the pool's share in strict mode)"),
    BUDGET_LIMIT("llm_ratelimit.budget.limit", "{microdollar}",
            "Hard budgets configured, summed per scope kind and model, in micro-dollars"),
    BUDGET_SPENT("llm_ratelimit.budget.spent", "{microdollar}",
            "Spent in the current period on the configured budgets, summed per scope kind and model, in micro-dollars");

    private final String id;
    private final String unit;
    private final String description;

    Instrument(String id, String unit, String description) {
        this.id = id;
        this.unit = unit;
        this.description = description;
    }

    /** The meter's name, e.g. {@code llm_ratelimit.decisions}. */
    public String id() {
        return id;
    }

    /** The OpenTelemetry unit: {@code s}, {@code 1}, or a count's annotation such as {@code {decision}}. */
    public String unit() {
        return unit;
    }

    public String description() {
        return description;
    }

    /** Whether the unit is seconds (the only dimensioned unit); the others are counts or ratios. */
    public boolean inSeconds() {
        return unit.equals("s");
    }
}
