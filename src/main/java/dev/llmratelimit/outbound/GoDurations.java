package dev.llmratelimit.outbound;

/**
 * Reads durations as Go's {@code time.Duration.String()} writes them, which is what OpenAI's
 * {@code x-ratelimit-reset-*} headers carry: {@code 1s}, {@code 6m0s}, {@code 12ms}, {@code 4m12.172s},
 * {@code 1h2m3s}, {@code 250us}. Any number of decimal parts, each a number (with an optional fraction)
 * and a unit of {@code h}, {@code m}, {@code s}, {@code ms}, {@code us}/{@code µs} or {@code ns}.
 */
public final class GoDurations {

    /** A figure above this (one day) is taken as this: the sum stays bounded. */
    public static final long MAX_MILLIS = 86_400_000L;

    private GoDurations() {
    }

    /** Milliseconds, rounded up; -1 when the text is not such a duration. */
    public static long parseMillis(String text) {
        if (text == null) {
            return -1;
        }
        String s = text.trim();
        if (s.isEmpty() || s.length() > 64) {
            return -1;
        }
        if (s.equals("0")) {
            return 0;
        }
        double millis = 0;
        int i = 0;
        while (i < s.length()) {
            int start = i;
            while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
                i++;
            }
            if (i == start) {
                return -1;
            }
            double number;
            try {
                number = Double.parseDouble(s.substring(start, i));
            } catch (NumberFormatException e) {
                return -1;
            }
            int unitStart = i;
            while (i < s.length() && !Character.isDigit(s.charAt(i)) && s.charAt(i) != '.') {
                i++;
            }
            double unit = switch (s.substring(unitStart, i)) {
                case "h" -> 3_600_000;
                case "m" -> 60_000;
                case "s" -> 1_000;
                case "ms" -> 1;
                case "us", "µs", "μs" -> 0.001;
                case "ns" -> 0.000_001;
                default -> -1;
            };
            if (unit < 0) {
                return -1;
            }
            millis += number * unit;
        }
        return Math.min(MAX_MILLIS, (long) Math.ceil(millis));
    }
}
