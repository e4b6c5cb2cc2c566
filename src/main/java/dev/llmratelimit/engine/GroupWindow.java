package dev.llmratelimit.engine;

/**
 * The counting period of a group: a rolling window ({@code millis > 0}, fixed or sliding, started
 * by the first request when none is live), a budget period named by its id and ending at
 * {@code periodEnd} (epoch ms; the id is part of the counter's identity, so periods roll lazily),
 * or {@link #NONE} for a group that only holds parallel slots.
 *
 * @param tag tells a scope's further windows apart from its first ({@code ""}): their counters are
 *            kept apart, under this tag (the window's length in milliseconds)
 */
public record GroupWindow(long millis, boolean sliding, String periodId, long periodEnd, String tag) {

    public static final GroupWindow NONE = new GroupWindow(0, false, null, 0, "");

    /** A scope's first (or only) rolling window. */
    public static GroupWindow rolling(long millis, boolean sliding) {
        return rolling(millis, sliding, "");
    }

    /** A further rolling window of a scope, its counters kept under {@code tag}. */
    public static GroupWindow rolling(long millis, boolean sliding, String tag) {
        if (millis <= 0) {
            throw new IllegalArgumentException("A rolling window needs a length above 0");
        }
        return new GroupWindow(millis, sliding, null, 0, tag);
    }

    public static GroupWindow period(String periodId, long periodEnd) {
        return new GroupWindow(0, false, periodId, periodEnd, "");
    }

    public boolean isRolling() {
        return millis > 0;
    }

    public boolean isPeriod() {
        return periodId != null;
    }

    /** Whether the group has counters at all (else only slots). */
    public boolean counts() {
        return isRolling() || isPeriod();
    }
}
