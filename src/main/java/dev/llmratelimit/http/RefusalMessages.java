package dev.llmratelimit.http;

import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.GroupWindow;
import dev.llmratelimit.engine.Limits;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.PoolSharing;
import dev.llmratelimit.engine.Refusal;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.engine.WindowLength;

import java.util.Locale;

/** The 429 messages of docs/errors.md. */
public final class RefusalMessages {

    private RefusalMessages() {
    }

    public static String of(Plan plan, Verdict verdict) {
        if (verdict.refusedBy() == null) {
            return of(verdict.refusal());
        }
        Dimension dimension = verdict.refusedBy().dimension();
        Limits model = plan.modelLimits();
        String details = "Rate limit type: " + dimension.label() + per(verdict.refusal())
                + ", Model TPM: " + capacity(model.tokens())
                + ", Model RPM: " + capacity(model.requests())
                + alsoLimited(model)
                + ", Remaining: " + verdict.remaining(dimension);
        String priority = "Priority: " + plan.pool() + sharing(verdict.sharing());
        if (verdict.refusedBy().isPool()) {
            return "Priority-based rate limit exceeded. Model: " + plan.model() + ", " + priority
                    + ", " + details + ", Model saturation: " + percent(verdict.saturation(), 1);
        }
        return "Model capacity reached for " + plan.model() + ". " + priority + ", " + details;
    }

    /** Under work-conserving fairness, the pools active and the share they leave this one. */
    private static String sharing(PoolSharing sharing) {
        return sharing == null ? "" : ", active priorities: " + String.join(", ", sharing.activePools())
                + ", share now: " + percent(sharing.shareNow(), 1);
    }

    /** A refusal by a caller scope; a key shows only as a short hash ({@code CounterGroup#label()}). */
    private static String of(Refusal refusal) {
        return "Rate limit exceeded for " + refusal.group().kind().label() + ": " + refusal.group().label()
                + ". Limit type: " + refusal.dimension().label() + per(refusal) + ", Limit: " + refusal.limit()
                + ", Current: " + refusal.current();
    }

    public static String percent(double fraction, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f%%", fraction * 100);
    }

    /**
     * The capacity of each further dimension (beyond LiteLLM's TPM and RPM, which are always named)
     * that the model limits in its configured window ({@code ", Model ITPM: 8000"}).
     */
    private static String alsoLimited(Limits model) {
        StringBuilder also = new StringBuilder();
        for (Dimension dimension : Dimension.WINDOWED) {
            if (dimension != Dimension.REQUESTS && dimension != Dimension.TOKENS && model.limits(dimension)) {
                also.append(", Model ").append(dimension.capacityName()).append(": ").append(model.of(dimension));
            }
        }
        return also.toString();
    }

    /** {@code " per 1d"} for a limit of a further window (not the configured one); {@code ""} otherwise. */
    private static String per(Refusal refusal) {
        GroupWindow window = refusal.group().window();
        return window.tag().isEmpty() ? "" : " per " + WindowLength.format(window.millis());
    }

    private static String capacity(long value) {
        return value > 0 ? Long.toString(value) : "not configured";
    }
}
