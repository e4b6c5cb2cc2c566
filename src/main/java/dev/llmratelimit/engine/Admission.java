package dev.llmratelimit.engine;

import dev.llmratelimit.policy.RateLimitType;
import dev.llmratelimit.usage.Usage;

import java.time.Clock;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The ticket of one request: the outcome of its decision, and the obligation to finish it exactly
 * once, with the usage of the response ({@link #complete}, {@link #charge}), without
 * ({@link #completeWithoutUsage}) or as failed ({@link #abort}). Finishing an admitted request
 * settles its whole plan in one store call: usage recorded, reservations settled, slots released.
 */
public final class Admission {

    public enum Outcome {
        /** The model is not configured (or not limited): nothing is counted. */
        UNLIMITED,
        ADMITTED,
        REFUSED,
        /** The model is not configured and {@code reject-unknown-models} is on. */
        UNKNOWN_MODEL,
        /** A budget applies but the model has no price ({@code budget.unpriced=refuse}): refused, never free. */
        UNPRICED_MODEL,
        /** The store failed; {@code on-store-failure=fail-open} lets the request through. */
        STORE_FAILED_OPEN,
        /** The store failed; {@code on-store-failure=fail-closed} refuses the request. */
        STORE_FAILED_CLOSED
    }

    private static final VarHandle FINISHED;

    static {
        try {
            FINISHED = MethodHandles.lookup().findVarHandle(Admission.class, "finished", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final ThrottledLog SETTLE_FAILURES = new ThrottledLog(Admission.class, System.Logger.Level.WARNING);
    private static final Admission UNLIMITED = new Admission(Outcome.UNLIMITED, null, null,
            new AdmissionContext(null, RateLimitType.TOTAL, false, Clock.systemUTC(), DecisionObserver.NONE), null, 0);
    /** An abort's settlement: nothing used, every reservation refunded. */
    private static final Settlement NOTHING_USED = Settlement.of(0, 0, 0, 0);

    private final Outcome outcome;
    private final Plan plan;
    private final Verdict verdict;
    private final AdmissionContext context;
    private final ExpectedOutput.Lesson expectedOutput;
    private final long decidedAt;
    /** Set by the first finishing call ({@link #FINISHED}). */
    private volatile boolean finished;
    private String unpricedModel;

    /**
     * @param context        the limiter's store, clock and observer (told of the usage and of a settlement
     *                       the store failed)
     * @param expectedOutput what the response teaches the expectation the estimate used; {@code null} if none
     * @param decidedAt      the context clock's time when the decision began: the lease counts from it
     */
    Admission(Outcome outcome, Plan plan, Verdict verdict, AdmissionContext context, ExpectedOutput.Lesson expectedOutput,
              long decidedAt) {
        this.outcome = outcome;
        this.plan = plan;
        this.verdict = verdict;
        this.context = context;
        this.expectedOutput = expectedOutput;
        this.decidedAt = decidedAt;
    }

    static Admission unlimited() {
        return UNLIMITED;
    }

    /** A request refused before any store call because a budget applies to a model without a price. */
    static Admission unpriced(String model, AdmissionContext context, long decidedAt) {
        Admission admission = new Admission(Outcome.UNPRICED_MODEL, null, null, context, null, decidedAt);
        admission.unpricedModel = model;
        return admission;
    }

    /** The engine's clock when the decision began (the lease counts from it). */
    public long decidedAt() {
        return decidedAt;
    }

    /** The model of the request, for messages: the plan's, or the unpriced model's. */
    public String model() {
        return plan != null ? plan.model() : unpricedModel;
    }

    public Outcome outcome() {
        return outcome;
    }

    /** The plan of the decision; {@code null} for an unconfigured model. */
    public Plan plan() {
        return plan;
    }

    /** The store's verdict; {@code null} when no decision was made (unconfigured model, store failure). */
    public Verdict verdict() {
        return verdict;
    }

    /** The first limit that refused the request (also in shadow mode), or {@code null}. */
    public Refusal refusal() {
        return verdict == null ? null : verdict.refusal();
    }

    public boolean isShadow() {
        return context.shadow();
    }

    /** Whether the application may be called. In shadow mode every request may. */
    public boolean permitsCall() {
        return context.shadow() || switch (outcome) {
            case UNLIMITED, ADMITTED, STORE_FAILED_OPEN -> true;
            case REFUSED, UNKNOWN_MODEL, UNPRICED_MODEL, STORE_FAILED_CLOSED -> false;
        };
    }

    /** The tokens the decision reserved on the model ({@code token-admission=reserve}); 0 when none. */
    public long reservedTokens() {
        return outcome == Outcome.ADMITTED ? plan.reservedTokens() : 0;
    }

    /**
     * Records the response's usage: in {@code recorded} mode its tokens, in {@code reserve} mode the
     * difference to the estimate (a refund when negative), in the window the estimate went into;
     * parallel slots are given back. Only an admitted request records: a request that shadow mode
     * let through although it would have been refused records nothing, as in enforce mode. Has no
     * effect after the first call to any of the finishing methods.
     */
    public void complete(Usage usage) {
        if (finish()) {
            try {
                if (expectedOutput != null) {
                    expectedOutput.learn(usage.completionTokens());
                }
            } finally {
                settle(usage);
            }
        }
    }

    /**
     * Charges usage the filter worked out itself because the response reported none (a cut
     * stream: its prompt and what was streamed). Like {@link #complete}, except that it teaches the
     * model's expected output nothing.
     */
    public void charge(Usage usage) {
        if (finish()) {
            settle(usage);
        }
    }

    /**
     * Charges a call that started to answer but reported no usage: what the caller worked out (its
     * prompt and the output already written), and never less than the decision reserved (the
     * tokens of {@code reserve} mode, a budget's worst case). Teaches nothing.
     */
    public void chargeAtLeastReserved(Usage worked) {
        if (finish()) {
            long tokens = Math.max(worked.tokens(context.rateLimitType()), plan.reservedTokens());
            long input = Math.max(worked.tokens(RateLimitType.INPUT), plan.reserved(Dimension.INPUT_TOKENS));
            long output = Math.max(worked.tokens(RateLimitType.OUTPUT), plan.reserved(Dimension.OUTPUT_TOKENS));
            long micros = Math.max(plan.cost().micros(worked), reservedMicros());
            settle(worked, Settlement.of(tokens, input, output, micros));
        }
    }

    /** The most money any group of the plan reserved (a budget's worst case); 0 when none. */
    private long reservedMicros() {
        long micros = 0;
        for (CounterGroup group : plan.groups()) {
            micros = Math.max(micros, group.increments().micros());
        }
        return micros;
    }

    /**
     * Finishes a call that did not deliver (non-2xx answer, exception, nothing written): its
     * request stays counted, every reservation is refunded.
     */
    public void abort() {
        if (finish()) {
            settle(NOTHING_USED);
        }
    }

    /**
     * Whether this is the first finishing call of a request whose plan must be settled: an admitted
     * one, or one served without the decision's answer (fail-open), which is counted all the same.
     */
    private boolean finish() {
        return FINISHED.compareAndSet(this, false, true)
                && (outcome == Outcome.ADMITTED || outcome == Outcome.STORE_FAILED_OPEN);
    }

    private void settle(Usage usage) {
        settle(usage, Settlement.of(usage.tokens(context.rateLimitType()), usage.tokens(RateLimitType.INPUT),
                usage.tokens(RateLimitType.OUTPUT), plan.cost().micros(usage)));
    }

    /** Tells the observer, and settles whatever the observer does: what the request acquired is given back. */
    private void settle(Usage usage, Settlement settlement) {
        try {
            context.observer().recorded(plan, usage);
        } finally {
            settle(settlement);
        }
    }

    private void settle(Settlement settlement) {
        long now = context.clock().millis();
        boolean late = now - decidedAt >= plan.leaseMillis();
        if (late) {
            settlement = settlement.asLate();
        }
        if (outcome == Outcome.STORE_FAILED_OPEN) {
            settlement = settlement.asUnanswered();
        }
        try {
            context.store().settle(plan, settlement, context.clock(), now);
        } catch (StoreUnavailableException e) {
            context.observer().storeFailed(DecisionObserver.StoreOperation.RECORD);
            SETTLE_FAILURES.log("Could not settle a request; its slots and reservation end with their lease", e);
        }
    }
}
