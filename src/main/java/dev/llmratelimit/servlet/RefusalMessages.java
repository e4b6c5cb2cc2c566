package dev.llmratelimit.servlet;

import dev.llmratelimit.engine.CallerCounter;
import dev.llmratelimit.engine.CallerRefusal;
import dev.llmratelimit.engine.DecisionPlan;
import dev.llmratelimit.engine.Verdict;

import java.util.Locale;

/** The 429 messages of SPEC section 6. */
final class RefusalMessages {

    private RefusalMessages() {
    }

    static String of(DecisionPlan plan, Verdict verdict) {
        boolean tokens = verdict.refusedBy().isTokens();
        String details = "Rate limit type: " + (tokens ? "tokens" : "requests")
                + ", Model TPM: " + capacity(plan.modelTpm())
                + ", Model RPM: " + capacity(plan.modelRpm())
                + ", Remaining: " + (tokens ? verdict.tokenRemaining() : verdict.requestRemaining());
        if (verdict.refusedBy().isPool()) {
            return "Priority-based rate limit exceeded. Model: " + plan.model() + ", Priority: " + plan.pool()
                    + ", " + details + ", Model saturation: " + percent(verdict.saturation(), 1);
        }
        return "Model capacity reached for " + plan.model() + ". Priority: " + plan.pool() + ", " + details;
    }

    /** A per-caller refusal; the key shows only as a short hash ({@link CallerCounter#label()}). */
    static String of(CallerRefusal refusal) {
        CallerCounter counter = refusal.counter();
        return "Rate limit exceeded for " + counter.scope().label() + ": " + counter.label()
                + ". Limit type: " + refusal.type().label() + ", Limit: " + refusal.limit()
                + ", Current: " + refusal.current();
    }

    static String percent(double fraction, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f%%", fraction * 100);
    }

    private static String capacity(long value) {
        return value > 0 ? Long.toString(value) : "not configured";
    }
}
