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
    private final Map<String, ModelPlans> plans = new HashMap<>();

    public RateLimiter(RateLimitPolicy policy, CounterStore store) {
        this.policy = policy;
        this.store = store;
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
