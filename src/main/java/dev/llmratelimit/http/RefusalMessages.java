package dev.llmratelimit.http;

import dev.llmratelimit.engine.Limits;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.Refusal;
import dev.llmratelimit.engine.Verdict;

import java.util.Locale;

/** The 429 messages of docs/errors.md. */
public final class RefusalMessages {

    private RefusalMessages() {
    }

    public static String of(Plan plan, Verdict verdict) {
        if (verdict.refusedBy() == null) {
            return of(verdict.refusal());
        }
        boolean tokens = verdict.refusedBy().isTokens();
        Limits model = plan.modelLimits();
        String details = "Rate limit type: " + (tokens ? "tokens" : "requests")
                + ", Model TPM: " + capacity(model.tokens())
                + ", Model RPM: " + capacity(model.requests())
                + ", Remaining: " + (tokens ? verdict.tokenRemaining() : verdict.requestRemaining());
        if (verdict.refusedBy().isPool()) {
            return "Priority-based rate limit exceeded. Model: " + plan.model() + ", Priority: " + plan.pool()
                    + ", " + details + ", Model saturation: " + percent(verdict.saturation(), 1);
        }
        return "Model capacity reached for " + plan.model() + ". Priority: " + plan.pool() + ", " + details;
    }

    /** A refusal by a caller scope; a key shows only as a short hash ({@code CounterGroup#label()}). */
    private static String of(Refusal refusal) {
        return "Rate limit exceeded for " + refusal.group().kind().label() + ": " + refusal.group().label()
                + ". Limit type: " + refusal.dimension().label() + ", Limit: " + refusal.limit()
                + ", Current: " + refusal.current();
    }

    public static String percent(double fraction, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f%%", fraction * 100);
    }

    private static String capacity(long value) {
        return value > 0 ? Long.toString(value) : "not configured";
    }
}
