package dev.llmratelimit.outbound;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.function.Function;

/**
 * What a provider's answer headers say about its limits: OpenAI's
 * {@code x-ratelimit-remaining-requests/-tokens} with {@code x-ratelimit-reset-requests/-tokens} (Go
 * durations), Anthropic's {@code anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-remaining}
 * with {@code -reset} (RFC 3339 instants), and a 429's {@code retry-after-ms} or {@code retry-after}
 * (seconds or an HTTP date). A value that does not parse, or is negative, counts as absent; every figure is
 * bounded to one day's worth.
 */
public final class ProviderHeaders {

    /** A 429 that says nothing of when to retry pauses this long. */
    public static final long DEFAULT_PAUSE_MILLIS = 1_000;

    private ProviderHeaders() {
    }

    /**
     * The remaining figures and resets of each limit the headers name. OpenAI's and Anthropic's request
     * figures both lower the request bucket (the least wins); Anthropic's {@code tokens},
     * {@code input-tokens} and {@code output-tokens} figures go to their own buckets.
     *
     * @param header the first value of a header, by name in lower case, or {@code null}
     */
    public static Correction correction(Function<String, String> header, Instant now) {
        Correction.Figure requests = openAi(header, "requests").least(anthropic(header, "requests", now));
        Correction.Figure tokens = openAi(header, "tokens").least(anthropic(header, "tokens", now));
        return new Correction(requests, tokens, anthropic(header, "input-tokens", now),
                anthropic(header, "output-tokens", now), Correction.NONE);
    }

    private static Correction.Figure openAi(Function<String, String> header, String limit) {
        long remaining = count(header.apply("x-ratelimit-remaining-" + limit));
        return remaining < 0 ? Correction.Figure.NONE
                : new Correction.Figure(remaining, GoDurations.parseMillis(header.apply("x-ratelimit-reset-" + limit)));
    }

    private static Correction.Figure anthropic(Function<String, String> header, String limit, Instant now) {
        long remaining = count(header.apply("anthropic-ratelimit-" + limit + "-remaining"));
        return remaining < 0 ? Correction.Figure.NONE
                : new Correction.Figure(remaining, untilInstant(header.apply("anthropic-ratelimit-" + limit + "-reset"), now));
    }

    /**
     * How long a 429 asks to wait: {@code retry-after-ms}, else {@code retry-after} in seconds or as an
     * HTTP date, else {@link #DEFAULT_PAUSE_MILLIS}.
     */
    public static long retryAfterMillis(Function<String, String> header, Instant now) {
        String millis = header.apply("retry-after-ms");
        if (millis != null) {
            try {
                double value = Double.parseDouble(millis.trim());
                if (value >= 0 && Double.isFinite(value)) {
                    return Math.min(GoDurations.MAX_MILLIS, (long) Math.ceil(value));
                }
            } catch (NumberFormatException e) {
                // try retry-after
            }
        }
        String after = header.apply("retry-after");
        if (after != null) {
            String text = after.trim();
            try {
                double seconds = Double.parseDouble(text);
                if (seconds >= 0 && Double.isFinite(seconds)) {
                    return Math.min(GoDurations.MAX_MILLIS, (long) Math.ceil(seconds * 1000));
                }
            } catch (NumberFormatException e) {
                try {
                    Instant at = ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
                    return clamp(Duration.between(now, at).toMillis());
                } catch (DateTimeParseException | ArithmeticException notADate) {
                    // fall through to the default
                }
            }
        }
        return DEFAULT_PAUSE_MILLIS;
    }

    private static long count(String value) {
        if (value == null) {
            return Correction.NONE;
        }
        try {
            long count = Long.parseLong(value.trim());
            return count >= 0 ? count : Correction.NONE;
        } catch (NumberFormatException e) {
            return Correction.NONE;
        }
    }

    private static long untilInstant(String value, Instant now) {
        if (value == null) {
            return Correction.NONE;
        }
        try {
            return clamp(Duration.between(now, OffsetDateTime.parse(value.trim()).toInstant()).toMillis());
        } catch (DateTimeParseException | ArithmeticException e) {
            return Correction.NONE;
        }
    }

    private static long clamp(long millis) {
        return Math.max(0, Math.min(GoDurations.MAX_MILLIS, millis));
    }
}
