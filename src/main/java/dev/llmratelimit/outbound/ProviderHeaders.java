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

    private static final String[] ANTHROPIC_TOKEN_LIMITS = {"tokens", "input-tokens", "output-tokens"};

    private ProviderHeaders() {
    }

    /**
     * The remaining figures and resets; for tokens, the least remaining of every token limit named (and its
     * reset), since a call needs room in all of them.
     *
     * @param header the first value of a header, by name in lower case, or {@code null}
     */
    public static Correction correction(Function<String, String> header, Instant now) {
        long remainingRequests = count(header.apply("x-ratelimit-remaining-requests"));
        long requestsReset = GoDurations.parseMillis(header.apply("x-ratelimit-reset-requests"));
        long remainingTokens = count(header.apply("x-ratelimit-remaining-tokens"));
        long tokensReset = GoDurations.parseMillis(header.apply("x-ratelimit-reset-tokens"));
        long anthropicRequests = count(header.apply("anthropic-ratelimit-requests-remaining"));
        if (anthropicRequests >= 0 && (remainingRequests < 0 || anthropicRequests < remainingRequests)) {
            remainingRequests = anthropicRequests;
            requestsReset = untilInstant(header.apply("anthropic-ratelimit-requests-reset"), now);
        }
        for (String limit : ANTHROPIC_TOKEN_LIMITS) {
            long remaining = count(header.apply("anthropic-ratelimit-" + limit + "-remaining"));
            if (remaining >= 0 && (remainingTokens < 0 || remaining < remainingTokens)) {
                remainingTokens = remaining;
                tokensReset = untilInstant(header.apply("anthropic-ratelimit-" + limit + "-reset"), now);
            }
        }
        return new Correction(remainingRequests, remainingRequests < 0 ? Correction.NONE : requestsReset,
                remainingTokens, remainingTokens < 0 ? Correction.NONE : tokensReset, Correction.NONE);
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
