package dev.llmratelimit.engine;

import dev.llmratelimit.policy.EnforcementMode;
import dev.llmratelimit.policy.ModelPolicy;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.policy.StoreFailureMode;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The engine: turns (model, priority) into the precomputed plan of its pool, asks the store for
 * one verdict, and hands out the {@link Admission} that records usage after the call.
 */
public final class RateLimiter {

    private static final ThrottledLog STORE_FAILURES = new ThrottledLog(RateLimiter.class, System.Logger.Level.WARNING);

    private final RateLimitPolicy policy;
    private final CounterStore store;
    private final CallerLimitStore callerStore;
    private final Map<String, ModelPlans> plans = new HashMap<>();

    public RateLimiter(RateLimitPolicy policy, CounterStore store) {
        this(policy, store, null);
    }

    /** @param callerStore where per-caller counters live; {@code null} when no caller limit is enforced */
    public RateLimiter(RateLimitPolicy policy, CounterStore store, CallerLimitStore callerStore) {
        this.policy = policy;
        this.store = store;
        this.callerStore = callerStore;
        long windowMillis = policy.window().toMillis();
        policy.models().forEach((name, model) -> plans.put(name, new ModelPlans(model, windowMillis)));
    }

    public RateLimitPolicy policy() {
        return policy;
    }

    /** Decides one request of a caller with (at most) one priority name. */
    public Admission admit(String model, String priority) {
        return admit(model, priority, null);
    }

    /**
     * Decides one request.
     *
     * @param model     the request body's {@code model}
     * @param preferred the caller's first-choice priority (its team's), or {@code null}
     * @param fallback  the priority used when the model does not configure {@code preferred}, or {@code null}
     */
    public Admission admit(String model, String preferred, String fallback) {
        ModelPlans modelPlans = plans.get(model);
        boolean shadow = policy.mode() == EnforcementMode.SHADOW;
        if (modelPlans == null) {
            return policy.rejectUnknownModels()
                    ? new Admission(Admission.Outcome.UNKNOWN_MODEL, null, null, shadow, store, policy.rateLimitType())
                    : Admission.unlimited();
        }
        DecisionPlan plan = modelPlans.planFor(preferred, fallback);
        try {
            Verdict verdict = store.decide(plan);
            Admission.Outcome outcome = verdict.admitted() ? Admission.Outcome.ADMITTED : Admission.Outcome.REFUSED;
            return new Admission(outcome, plan, verdict, shadow, store, policy.rateLimitType());
        } catch (StoreUnavailableException e) {
            boolean open = policy.onStoreFailure() == StoreFailureMode.FAIL_OPEN;
            STORE_FAILURES.log("Counter store unavailable, request " + (open ? "admitted (fail-open)" : "refused (fail-closed)"), e);
            return new Admission(open ? Admission.Outcome.STORE_FAILED_OPEN : Admission.Outcome.STORE_FAILED_CLOSED,
                    plan, null, shadow, store, policy.rateLimitType());
        }
    }

    /**
     * Decides one request that also has per-caller limits to pass (for a configured model; a request
     * for an unconfigured model passes them untouched, as it passes the model's). All or nothing:
     * the caller's counters are acquired first, so a caller refusal leaves every model and pool
     * counter alone; a model or pool refusal then gives the caller acquisition back.
     *
     * @param callerPlan the caller's counters, or {@code null} when no caller limit applies
     */
    public Admission admit(String model, String preferred, String fallback, CallerPlan callerPlan) {
        ModelPlans modelPlans = plans.get(model);
        if (callerPlan == null || callerStore == null || modelPlans == null) {
            return admit(model, preferred, fallback);
        }
        CallerVerdict callerVerdict;
        try {
            callerVerdict = callerStore.acquire(callerPlan);
        } catch (StoreUnavailableException e) {
            if (policy.onStoreFailure() == StoreFailureMode.FAIL_OPEN) {
                STORE_FAILURES.log("Caller limit store unavailable, caller limits skipped (fail-open)", e);
                return admit(model, preferred, fallback);
            }
            STORE_FAILURES.log("Caller limit store unavailable, request refused (fail-closed)", e);
            return new Admission(Admission.Outcome.STORE_FAILED_CLOSED, modelPlans.planFor(preferred, fallback),
                    null, policy.mode() == EnforcementMode.SHADOW, store, policy.rateLimitType());
        }
        if (!callerVerdict.admitted()) {
            return Admission.refusedByCaller(modelPlans.planFor(preferred, fallback), callerVerdict.refusal(),
                    policy.mode() == EnforcementMode.SHADOW, policy.rateLimitType());
        }
        CallerTicket ticket = new CallerTicket(callerPlan, callerVerdict.hold(), callerStore);
        Admission admission = admit(model, preferred, fallback);
        Admission.Outcome outcome = admission.outcome();
        if (outcome == Admission.Outcome.ADMITTED || outcome == Admission.Outcome.STORE_FAILED_OPEN) {
            return admission.holding(ticket);
        }
        ticket.compensate();
        return admission;
    }

    /** The plan of every pool of one model. */
    private static final class ModelPlans {
        private final ModelPolicy model;
        private final Map<String, DecisionPlan> byPool = new HashMap<>();

        ModelPlans(ModelPolicy model, long windowMillis) {
            this.model = model;
            List<String> pools = model.poolNames();
            for (int i = 0; i < pools.size(); i++) {
                String pool = pools.get(i);
                double share = model.shareOf(pool);
                byPool.put(pool, new DecisionPlan(model.name(), pool, i, pools.size(),
                        model.rpm(), model.tpm(),
                        ModelPolicy.poolLimit(model.rpm(), share), ModelPolicy.poolLimit(model.tpm(), share),
                        model.poolsEnforced(), model.saturationThreshold(), windowMillis));
            }
        }

        DecisionPlan planFor(String preferred, String fallback) {
            return byPool.get(model.poolOf(preferred, fallback));
        }
    }
}
