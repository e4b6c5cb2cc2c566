package dev.llmratelimit.engine;

import dev.llmratelimit.policy.EnforcementMode;
import dev.llmratelimit.policy.ModelPolicy;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.policy.RateLimitType;
import dev.llmratelimit.policy.StoreFailureMode;
import dev.llmratelimit.policy.TokenAdmission;
import dev.llmratelimit.policy.WindowMode;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The engine: turns (model, priority) into the precomputed plan of its pool, asks the store for
 * one verdict, and hands out the {@link Admission} that records usage after the call.
 */
public final class RateLimiter {

    /** The {@code maxOutputTokens} of a request that sets no {@code max_tokens}. */
    public static final long UNKNOWN_OUTPUT = -1;

    private static final ThrottledLog STORE_FAILURES = new ThrottledLog(RateLimiter.class, System.Logger.Level.WARNING);

    private final RateLimitPolicy policy;
    private final CounterStore store;
    private final CallerLimitStore callerStore;
    private final DecisionObserver observer;
    private final Map<String, ModelPlans> plans = new HashMap<>();

    public RateLimiter(RateLimitPolicy policy, CounterStore store) {
        this(policy, store, null);
    }

    /** @param callerStore where per-caller counters live; {@code null} when no caller limit is enforced */
    public RateLimiter(RateLimitPolicy policy, CounterStore store, CallerLimitStore callerStore) {
        this(policy, store, callerStore, DecisionObserver.NONE);
    }

    /** @param observer told of every decision, settlement and store failure */
    public RateLimiter(RateLimitPolicy policy, CounterStore store, CallerLimitStore callerStore,
                       DecisionObserver observer) {
        this.policy = policy;
        this.store = store;
        this.callerStore = callerStore;
        this.observer = observer;
        long windowMillis = policy.window().toMillis();
        boolean sliding = policy.windowMode() == WindowMode.SLIDING;
        policy.models().forEach((name, model) -> plans.put(name, new ModelPlans(model, windowMillis, sliding)));
    }

    public RateLimitPolicy policy() {
        return policy;
    }

    /** Decides one request of a caller with (at most) one priority name. */
    public Admission admit(String model, String priority) {
        return admit(model, priority, null);
    }

    /**
     * Decides one request; with {@code token-admission=reserve} it reserves the expected output
     * only, as for a request without prompt and without {@code max_tokens}.
     *
     * @param model     the request body's {@code model}
     * @param preferred the caller's first-choice priority (its team's), or {@code null}
     * @param fallback  the priority used when the model does not configure {@code preferred}, or {@code null}
     */
    public Admission admit(String model, String preferred, String fallback) {
        return admit(model, preferred, fallback, 0, UNKNOWN_OUTPUT);
    }

    /**
     * Whether {@link #admit(String, String, String, long, long)} uses prompt tokens for this model:
     * {@code token-admission=reserve}, the model limits tokens and {@code rate-limit-type} counts the
     * prompt. Counting them costs a tokenizer pass, so callers count only when this is true.
     */
    public boolean needsPromptTokens(String model) {
        ModelPlans modelPlans = plans.get(model);
        return modelPlans != null && policy.tokenAdmission() == TokenAdmission.RESERVE
                && modelPlans.model.tpm() > 0 && policy.rateLimitType() != RateLimitType.OUTPUT;
    }

    /**
     * Decides one request. With {@code token-admission=reserve} its token estimate is reserved:
     * prompt plus expected output as {@code rate-limit-type} counts them (at least 1, at most the
     * model's TPM), where the expected output is {@code maxOutputTokens} when given, else the model's
     * learned expectation ({@link ExpectedOutput}). In {@code recorded} mode the token figures are ignored.
     *
     * @param promptTokens    the request's prompt tokens (see {@link #needsPromptTokens})
     * @param maxOutputTokens the request's {@code max_completion_tokens}/{@code max_tokens}, or {@link #UNKNOWN_OUTPUT}
     */
    public Admission admit(String model, String preferred, String fallback, long promptTokens, long maxOutputTokens) {
        long start = System.nanoTime();
        ModelPlans modelPlans = plans.get(model);
        Admission admission = modelPlans == null ? unconfigured()
                : decide(modelPlans, preferred, fallback, promptTokens, maxOutputTokens);
        observer.decided(admission, System.nanoTime() - start);
        return admission;
    }

    /** The plans of every pool of a configured model, in pool-index order; empty for another model. */
    public List<DecisionPlan> plansOf(String model) {
        ModelPlans modelPlans = plans.get(model);
        return modelPlans == null ? List.of() : modelPlans.inPoolOrder;
    }

    /**
     * The counters of a configured model as its next decision would see them, read without
     * changing anything; {@code null} for a model that is not configured. A failure is reported
     * to the observer as a failed {@link DecisionObserver.StoreOperation#SNAPSHOT}.
     *
     * @throws StoreUnavailableException when the store cannot answer or takes no snapshots
     */
    public ModelCounters snapshot(String model) {
        ModelPlans modelPlans = plans.get(model);
        if (modelPlans == null) {
            return null;
        }
        try {
            if (!(store instanceof CounterSnapshots snapshots)) {
                throw new StoreUnavailableException("The counter store takes no snapshots", null);
            }
            return snapshots.snapshot(modelPlans.inPoolOrder);
        } catch (StoreUnavailableException e) {
            observer.storeFailed(DecisionObserver.StoreOperation.SNAPSHOT);
            throw e;
        }
    }

    private Admission unconfigured() {
        return policy.rejectUnknownModels()
                ? new Admission(Admission.Outcome.UNKNOWN_MODEL, null, null, policy.mode() == EnforcementMode.SHADOW,
                        store, policy.rateLimitType(), observer)
                : Admission.unlimited();
    }

    private Admission decide(ModelPlans modelPlans, String preferred, String fallback, long promptTokens,
                             long maxOutputTokens) {
        boolean shadow = policy.mode() == EnforcementMode.SHADOW;
        DecisionPlan plan = modelPlans.planFor(preferred, fallback);
        boolean reserve = policy.tokenAdmission() == TokenAdmission.RESERVE && plan.limitsTokens();
        long estimate = reserve ? estimate(plan, promptTokens, maxOutputTokens, modelPlans.expectedOutput) : 0;
        try {
            Verdict verdict = store.decide(plan, estimate);
            Admission.Outcome outcome = verdict.admitted() ? Admission.Outcome.ADMITTED : Admission.Outcome.REFUSED;
            ExpectedOutput taught = reserve && maxOutputTokens < 0 && policy.rateLimitType() != RateLimitType.INPUT
                    ? modelPlans.expectedOutput : null;
            return new Admission(outcome, plan, verdict, shadow, store, policy.rateLimitType(), estimate, taught, observer);
        } catch (StoreUnavailableException e) {
            observer.storeFailed(DecisionObserver.StoreOperation.DECIDE);
            boolean open = policy.onStoreFailure() == StoreFailureMode.FAIL_OPEN;
            STORE_FAILURES.log("Counter store unavailable, request " + (open ? "admitted (fail-open)" : "refused (fail-closed)"), e);
            return new Admission(open ? Admission.Outcome.STORE_FAILED_OPEN : Admission.Outcome.STORE_FAILED_CLOSED,
                    plan, null, shadow, store, policy.rateLimitType(), observer);
        }
    }

    /** Decides one request with per-caller limits and no token estimate ({@code recorded} admission). */
    public Admission admit(String model, String preferred, String fallback, CallerPlan callerPlan) {
        return admit(model, preferred, fallback, 0, UNKNOWN_OUTPUT, callerPlan);
    }

    /**
     * Decides one request that also has per-caller limits to pass (for a configured model; a request
     * for an unconfigured model passes them untouched, as it passes the model's). All or nothing:
     * the caller's counters are acquired first, so a caller refusal leaves every model and pool
     * counter alone; a model or pool refusal then gives the caller acquisition back.
     *
     * @param callerPlan the caller's counters, or {@code null} when no caller limit applies
     */
    public Admission admit(String model, String preferred, String fallback, long promptTokens,
                           long maxOutputTokens, CallerPlan callerPlan) {
        long start = System.nanoTime();
        Admission admission = admitWithCaller(model, preferred, fallback, promptTokens, maxOutputTokens, callerPlan);
        observer.decided(admission, System.nanoTime() - start);
        return admission;
    }

    private Admission admitWithCaller(String model, String preferred, String fallback, long promptTokens,
                                      long maxOutputTokens, CallerPlan callerPlan) {
        ModelPlans modelPlans = plans.get(model);
        if (modelPlans == null) {
            return unconfigured();
        }
        if (callerPlan == null || callerStore == null) {
            return decide(modelPlans, preferred, fallback, promptTokens, maxOutputTokens);
        }
        CallerVerdict callerVerdict;
        try {
            callerVerdict = callerStore.acquire(callerPlan);
        } catch (StoreUnavailableException e) {
            observer.storeFailed(DecisionObserver.StoreOperation.CALLER_ACQUIRE);
            if (policy.onStoreFailure() == StoreFailureMode.FAIL_OPEN) {
                STORE_FAILURES.log("Caller limit store unavailable, caller limits skipped (fail-open)", e);
                return decide(modelPlans, preferred, fallback, promptTokens, maxOutputTokens);
            }
            STORE_FAILURES.log("Caller limit store unavailable, request refused (fail-closed)", e);
            return new Admission(Admission.Outcome.STORE_FAILED_CLOSED, modelPlans.planFor(preferred, fallback),
                    null, policy.mode() == EnforcementMode.SHADOW, store, policy.rateLimitType(), observer);
        }
        if (!callerVerdict.admitted()) {
            return Admission.refusedByCaller(modelPlans.planFor(preferred, fallback), callerVerdict.refusal(),
                    policy.mode() == EnforcementMode.SHADOW, policy.rateLimitType(), observer);
        }
        CallerTicket ticket = new CallerTicket(callerPlan, callerVerdict.hold(), callerStore);
        Admission admission;
        try {
            admission = decide(modelPlans, preferred, fallback, promptTokens, maxOutputTokens);
        } catch (RuntimeException e) {
            ticket.compensate();                    // a failing model store must not keep the caller's slot
            throw e;
        }
        Admission.Outcome outcome = admission.outcome();
        if (outcome == Admission.Outcome.ADMITTED || outcome == Admission.Outcome.STORE_FAILED_OPEN) {
            return admission.holding(ticket);
        }
        ticket.compensate();
        return admission;
    }

    private long estimate(DecisionPlan plan, long promptTokens, long maxOutputTokens, ExpectedOutput expected) {
        long output = maxOutputTokens >= 0 ? maxOutputTokens : expected.tokens();
        long prompt = Math.max(0, promptTokens);
        long tokens = switch (policy.rateLimitType()) {
            case TOTAL -> output > Long.MAX_VALUE - prompt ? Long.MAX_VALUE : prompt + output;
            case INPUT -> prompt;
            case OUTPUT -> output;
        };
        return Math.min(plan.modelTpm(), Math.max(1, tokens));
    }

    /** The plan of every pool of one model, and what its responses taught about their size. */
    private static final class ModelPlans {
        private final ModelPolicy model;
        private final ExpectedOutput expectedOutput;
        private final Map<String, DecisionPlan> byPool = new HashMap<>();
        private final List<DecisionPlan> inPoolOrder;

        ModelPlans(ModelPolicy model, long windowMillis, boolean sliding) {
            this.model = model;
            this.expectedOutput = new ExpectedOutput(model.expectedOutputTokens());
            List<String> pools = model.poolNames();
            for (int i = 0; i < pools.size(); i++) {
                String pool = pools.get(i);
                double share = model.shareOf(pool);
                byPool.put(pool, new DecisionPlan(model.name(), pool, i, pools.size(),
                        model.rpm(), model.tpm(),
                        ModelPolicy.poolLimit(model.rpm(), share), ModelPolicy.poolLimit(model.tpm(), share),
                        model.poolsEnforced(), model.saturationThreshold(), windowMillis, sliding));
            }
            inPoolOrder = pools.stream().map(byPool::get).toList();
        }

        DecisionPlan planFor(String preferred, String fallback) {
            return byPool.get(model.poolOf(preferred, fallback));
        }
    }
}
