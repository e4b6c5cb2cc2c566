package dev.llmratelimit.engine;

/** The answer of a {@link CallerLimitStore}: a hold to give back later, or the refusal. */
public record CallerVerdict(CallerHold hold, CallerRefusal refusal) {

    public static CallerVerdict admitted(CallerHold hold) {
        return new CallerVerdict(hold, null);
    }

    public static CallerVerdict refused(CallerRefusal refusal) {
        return new CallerVerdict(null, refusal);
    }

    public boolean admitted() {
        return refusal == null;
    }
}
