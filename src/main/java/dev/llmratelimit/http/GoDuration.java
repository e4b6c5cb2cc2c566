package dev.llmratelimit.http;

/**
 * A duration as Go's {@code time.Duration.String()} prints it, which is how OpenAI writes its
 * {@code x-ratelimit-reset-*} headers and clients parse them: {@code 12ms}, {@code 1s},
 * {@code 1.5s}, {@code 6m0s}, {@code 1h0m0s}.
 */
public final class GoDuration {

    private GoDuration() {
    }

    /** Millisecond precision; zero and less is {@code 0s}. */
    public static String format(long millis) {
        if (millis <= 0) {
            return "0s";
        }
        if (millis < 1000) {
            return millis + "ms";
        }
        long hours = millis / 3_600_000;
        long minutes = millis / 60_000 % 60;
        StringBuilder text = new StringBuilder();
        if (hours > 0) {
            text.append(hours).append('h');
        }
        if (hours > 0 || minutes > 0) {
            text.append(minutes).append('m');
        }
        text.append(millis / 1000 % 60);
        long fraction = millis % 1000;
        if (fraction > 0) {
            text.append('.').append(fraction / 100);                              // 5 -> ".005", 50 -> ".05"
            fraction %= 100;
            for (long unit = 10; fraction > 0; unit /= 10) {
                text.append(fraction / unit);
                fraction %= unit;
            }
        }
        return text.append('s').toString();
    }
}
