package dev.llmratelimit.engine;

/** A window's length as configuration writes it: {@code 1d}, {@code 6h}, {@code 90s}, {@code 250ms}. */
public final class WindowLength {

    private static final long[] UNITS = {86_400_000, 3_600_000, 60_000, 1_000};
    private static final String[] NAMES = {"d", "h", "m", "s"};

    private WindowLength() {
    }

    public static String format(long millis) {
        for (int i = 0; i < UNITS.length; i++) {
            if (millis % UNITS[i] == 0) {
                return millis / UNITS[i] + NAMES[i];
            }
        }
        return millis + "ms";
    }
}
