package dev.llmratelimit.engine;

import dev.llmratelimit.policy.EnforcementMode;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.policy.RateLimitType;
import dev.llmratelimit.policy.StoreFailureMode;
import dev.llmratelimit.policy.TokenAdmission;
import dev.llmratelimit.policy.WindowMode;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The engine: turns one {@link AdmissionRequest} into its {@link Plan} (caller scopes, model and
 * pool groups, and whatever {@link PlanExtension}s add), asks the store for one verdict, and hands
 * out the {@link Admission} that settles the plan after the call.
 */
public final class RateLimiter {

    /** How long a parallel slot and a decision's record live when the configuration says nothing. */
    public static final long DEFAULT_LEASE_MILLIS = 600_000;

    /** What a request adds to its model and pool groups when it reserves no tokens. */
    private static final Increments ONE_REQUEST = new Increments(1, 0, 0, false);

    private static final ThrottledLog STORE_FAILURES = new ThrottledLog(RateLimiter.class, System.Logger.Level.WARNING);

    private final RateLimitPolicy policy;
    private final AdmissionStore store;
    private final Clock clock;
    private final long leaseMillis;
    private final List<PlanExtension> extensions;
    private final DecisionObserver observer;
    /** Whether an observer wants each decision's elapsed time (the clock is read twice more per decision). */
    private final boolean timed;
    private final CallerGroups callerGroups;
    private final AdmissionContext admissions;
    /**
     * Whether a request's tokens are estimated: for a reservation or for an extension; otherwise a
     * request adds one request and nothing reads its prompt.
     */
    private final boolean estimates;
    private final Map<String, ModelPlans> plans = new HashMap<>();
    private final RefusalHints hints = new RefusalHints();
    private final String instanceId = Long.toString(new SecureRandom().nextLong() & Long.MAX_VALUE, 36);
    private final AtomicLong nextRequest = new AtomicLong();

    public RateLimiter(RateLimitPolicy policy, AdmissionStore store) {
        this(policy, store, Clock.systemUTC(), DEFAULT_LEASE_MILLIS, List.of());
    }

    /** A limiter nobody observes; see the full constructor. */
    public RateLimiter(RateLimitPolicy policy, AdmissionStore store, Clock clock, long leaseMillis,
                       List<PlanExtension> extensions) {
        this(policy, store, clock, leaseMillis, extensions, DecisionObserver.NONE);
    }

    /**
     * @param clock       the engine's clock (refusal hints and the windows of the expected output; counter
     *                    windows use the store's clock)
     * @param leaseMillis {@code parallel-lease}: how long slots and decision records live at most
     * @param extensions  further limit kinds, checked after model and pool
     * @param observer    told of every decision, settlement and store failure
     */
    public RateLimiter(RateLimitPolicy policy, AdmissionStore store, Clock clock, long leaseMillis,
                       List<PlanExtension> extensions, DecisionObserver observer) {
        this.policy = policy;
        this.store = store;
        this.clock = clock;
        this.leaseMillis = leaseMillis;
        this.extensions = List.copyOf(extensions);
        this.observer = observer;
        this.timed = observer.timesDecisions();
        this.admissions = new AdmissionContext(store, policy.rateLimitType(), policy.mode() == EnforcementMode.SHADOW,
                clock, observer);
        this.estimates = policy.tokenAdmission() == TokenAdmission.RESERVE || !this.extensions.isEmpty();
        boolean sliding = policy.windowMode() == WindowMode.SLIDING;
        ScopeWindows windows = new ScopeWindows(policy.window().toMillis(), sliding);
        this.callerGroups = new CallerGroups(windows, policy.window().toMillis(), sliding);
        policy.models().forEach((name, model) -> plans.put(name,
                new ModelPlans(model, windows, policy.window().toMillis(), clock::millis)));
    }

    public RateLimitPolicy policy() {
        return policy;
    }

    /** Decides one request: one store call, whatever limits apply. */
    public Admission admit(AdmissionRequest request) {
        if (observer == DecisionObserver.NONE) {
            return decide(request);
        }
        long start = timed ? System.nanoTime() : 0;
        Admission admission = decide(request);
        observer.decided(admission, timed ? System.nanoTime() - start : DecisionObserver.UNTIMED);
        return admission;
    }

    /** The groups of a configured model, in pool order; {@code null} for a model that is not configured. */
    public ModelGroups groupsOf(String model) {
        ModelPlans modelPlans = plans.get(model);
        return modelPlans == null ? null : modelPlans.groups;
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
            return store.snapshot(modelPlans.groups);
        } catch (StoreUnavailableException e) {
            observer.storeFailed(DecisionObserver.StoreOperation.SNAPSHOT);
            throw e;
        }
    }

    private Admission decide(AdmissionRequest request) {
        ModelPlans modelPlans = plans.get(request.model());
        if (modelPlans == null) {
            return policy.rejectUnknownModels()
                    ? admission(Admission.Outcome.UNKNOWN_MODEL, null, null, null, 0)
                    : admitUnconfigured(request);
        }
        ModelPlans.PoolPlan pool = modelPlans.poolOf(request.preferred(), request.fallback());
        PlanGroups groups = callerGroups.before(request.callers(), pool.groups());
        int modelAt = groups.size() - pool.groups().size();
        long now = clock.millis();
        if (!estimates) {
            return decide(request, pool, groups, modelAt, null, now);
        }
        Estimate estimate = new Estimate(request, modelPlans, pool, hints.anyHinted(groups, now));
        Admission admission = decide(request, pool, groups, modelAt, estimate, now);
        if (admission.outcome() == Admission.Outcome.REFUSED && estimate.usedBound() && boundMayHaveRefused(admission)) {
            // The hint was stale and the free bound, not the prompt, may be what refused: count and ask again.
            estimate = new Estimate(request, modelPlans, pool, false);
            admission = decide(request, pool, groups, modelAt, estimate, now);
        }
        return admission;
    }

    private static boolean boundMayHaveRefused(Admission admission) {
        Dimension dimension = admission.refusal().dimension();
        return dimension.isTokens() || dimension == Dimension.MONEY;
    }

    /** @param estimate the request's tokens; {@code null} when nothing asks for them (see {@link #estimates}) */
    private Admission decide(AdmissionRequest request, ModelPlans.PoolPlan pool, PlanGroups base,
                             int modelAt, Estimate estimate, long now) {
        PlanGroups groups = base;
        Increments reserved = estimate == null ? ONE_REQUEST : estimate.reserved();
        if (reserved.reservesTokens()) {
            CounterGroup[] estimated = new CounterGroup[base.size()];
            for (int i = modelAt; i < estimated.length; i++) {
                estimated[i] = base.get(i).withIncrements(reserved);
            }
            groups = base.replacing(estimated);
        }
        Plan plan = new Plan(requestId(request), request.model(), pool.name(), groups, lease(request), UsageCost.FREE);
        for (PlanExtension extension : extensions) {
            PlanExtension.Contribution contribution = extension.contribute(request, estimate);
            if (contribution.unpriced()) {
                return unpriced(request);
            }
            plan = plan.plus(contribution.groups(), contribution.cost());
        }
        boolean expectsOutput = reserved.of(Dimension.OUTPUT_TOKENS) > 0
                || reserved.tokens() > 0 && policy.rateLimitType() != RateLimitType.INPUT;
        return decide(plan, now, expectsOutput && request.maxOutputTokens() < 0
                ? pool.expectedOutput().lessonFor(request.n()) : null);
    }

    /**
     * A model without limits of its own: the caller's limits and slots (they are about the caller,
     * whatever the model) and what the extensions add (budgets apply to every model); unlimited when
     * nothing applies.
     */
    private Admission admitUnconfigured(AdmissionRequest request) {
        List<CounterGroup> groups = callerGroups.of(request.callers());
        UsageCost cost = UsageCost.FREE;
        if (!extensions.isEmpty()) {
            PlanExtension.TokenEstimate estimate = new UnconfiguredEstimate(request);
            for (PlanExtension extension : extensions) {
                PlanExtension.Contribution contribution = extension.contribute(request, estimate);
                if (contribution.unpriced()) {
                    return unpriced(request);
                }
                groups = joined(groups, contribution.groups());
                cost = contribution.cost() == null ? cost : contribution.cost();
            }
        }
        if (groups.isEmpty()) {
            return Admission.unlimited();
        }
        long now = clock.millis();
        return decide(new Plan(requestId(request), request.model(), "", groups, lease(request), cost), now, null);
    }

    /** {@code first} followed by {@code then}; either alone when the other is empty (what stores compiled for it stays). */
    private static List<CounterGroup> joined(List<CounterGroup> first, List<CounterGroup> then) {
        return first.isEmpty() ? then : then.isEmpty() ? first : PlanGroups.concat(first, then);
    }

    private Admission unpriced(AdmissionRequest request) {
        return Admission.unpriced(request.model(), admissions, clock.millis());
    }

    private RequestId requestId(AdmissionRequest request) {
        return request.requestId() != null ? RequestId.of(request.requestId())
                : RequestId.numbered(instanceId, nextRequest);
    }

    private long lease(AdmissionRequest request) {
        return request.callers() != null ? request.callers().leaseMillis() : leaseMillis;
    }

    private Admission decide(Plan plan, long now, ExpectedOutput.Lesson taught) {
        Verdict verdict;
        try {
            verdict = store.decide(plan, clock, now);
        } catch (StoreUnavailableException e) {
            observer.storeFailed(DecisionObserver.StoreOperation.DECIDE);
            boolean open = policy.onStoreFailure() == StoreFailureMode.FAIL_OPEN && !e.stopping();
            STORE_FAILURES.log(e.getMessage() + "; request " + (open ? "admitted (fail-open), counted once the store answers"
                    : "refused (fail-closed)"), e);
            if (!open && e.mayHaveRun()) {
                cancelQuietly(plan);   // a refused request must count nothing, even if its decision runs late
            }
            return admission(open ? Admission.Outcome.STORE_FAILED_OPEN : Admission.Outcome.STORE_FAILED_CLOSED,
                    plan, null, null, now);
        } catch (RuntimeException e) {
            cancelQuietly(plan);       // whatever an unexpected failure may have applied must not stay
            throw e;
        }
        if (!verdict.admitted()) {
            hints.note(verdict.refusal(), now);
            return admission(Admission.Outcome.REFUSED, plan, verdict, null, now);
        }
        return admission(Admission.Outcome.ADMITTED, plan, verdict, taught, now);
    }

    /** @param decidedAt the engine's clock when the decision began (the lease counts from it) */
    private Admission admission(Admission.Outcome outcome, Plan plan, Verdict verdict, ExpectedOutput.Lesson taught,
                                long decidedAt) {
        return new Admission(outcome, plan, verdict, admissions, taught, decidedAt);
    }

    private void cancelQuietly(Plan plan) {
        try {
            store.settle(plan, Settlement.CANCEL);
        } catch (RuntimeException e) {
            STORE_FAILURES.log("Could not cancel a failed decision; its slots end with their lease", e);
        }
    }

    /** The tokens one request is expected to use; the prompt is counted at most once, and only if needed. */
    private final class Estimate implements PlanExtension.TokenEstimate {
        private final AdmissionRequest request;
        private final ModelPlans modelPlans;
        private final ExpectedOutput expectedOutput;
        private final boolean preferBound;
        private boolean usedBound;

        Estimate(AdmissionRequest request, ModelPlans modelPlans, ModelPlans.PoolPlan pool, boolean preferBound) {
            this.request = request;
            this.modelPlans = modelPlans;
            this.expectedOutput = pool.expectedOutput();
            this.preferBound = preferBound;
        }

        @Override
        public long promptTokens() {
            if (preferBound) {
                usedBound = true;
                return request.prompt().upperBound();
            }
            return request.prompt().count();
        }

        @Override
        public long outputTokens() {
            long perChoice = request.maxOutputTokens() >= 0 ? request.maxOutputTokens() : expectedOutput.tokens();
            return Saturating.multiply(perChoice, request.n());
        }

        boolean usedBound() {
            return usedBound;
        }

        /**
         * {@code token-admission=reserve}: what the request adds to the model and pool groups: its
         * request, and per token dimension the model limits the expected tokens (tokens: prompt plus
         * expected output as {@code rate-limit-type} counts them; input: the prompt; output: the
         * expected output), each at least 1 and at most the model's smallest limit of it; without
         * a reservation, the request alone.
         */
        Increments reserved() {
            if (policy.tokenAdmission() != TokenAdmission.RESERVE) {
                return ONE_REQUEST;
            }
            long[] added = new long[Dimension.WINDOWED.size()];
            added[Dimension.REQUESTS.index()] = 1;
            reserve(added, Dimension.TOKENS);
            reserve(added, Dimension.INPUT_TOKENS);
            reserve(added, Dimension.OUTPUT_TOKENS);
            return new Increments(added, 0, false);
        }

        private void reserve(long[] added, Dimension dimension) {
            long limit = modelPlans.smallestLimit(dimension);
            if (limit <= 0) {
                return;
            }
            long tokens = switch (dimension) {
                case INPUT_TOKENS -> promptTokens();
                case OUTPUT_TOKENS -> outputTokens();
                default -> switch (policy.rateLimitType()) {
                    case TOTAL -> Saturating.add(promptTokens(), outputTokens());
                    case INPUT -> promptTokens();
                    case OUTPUT -> outputTokens();
                };
            };
            added[dimension.index()] = Math.min(limit, Math.max(1, tokens));
        }
    }

    /** The tokens of a request for an unconfigured model: its prompt and its {@code max_tokens}, if set. */
    private record UnconfiguredEstimate(AdmissionRequest request) implements PlanExtension.TokenEstimate {

        @Override
        public long promptTokens() {
            return request.prompt().count();
        }

        @Override
        public long outputTokens() {
            return request.maxOutputTokens() < 0 ? 0 : Saturating.multiply(request.maxOutputTokens(), request.n());
        }
    }
}
