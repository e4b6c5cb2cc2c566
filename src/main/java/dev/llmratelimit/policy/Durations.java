package dev.llmratelimit.policy;

import java.time.Duration;
import java.time.format.DateTimeParseException;

/** Parses durations written as {@code 500ms}, {@code 60s}, {@code 2m}, {@code 1h}, {@code 1d} or ISO-8601 ({@code PT60S}, {@code P30D}). */
public final class Durations {

    private Durations() {
    }

    /** A length in the largest unit that writes it exactly, as configuration reads it: {@code 1d}, {@code 1m}, {@code 90s}, {@code 500ms}. */
    public static String format(long millis) {
        if (millis > 0 && millis % 86_400_000 == 0) {
            return millis / 86_400_000 + "d";
        }
        if (millis > 0 && millis % 3_600_000 == 0) {
            return millis / 3_600_000 + "h";
        }
        if (millis > 0 && millis % 60_000 == 0) {
            return millis / 60_000 + "m";
        }
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }

    /** @throws PolicyException for text that is no duration, or a number of its unit past what a duration holds */
    public static Duration parse(String property, String text) {
        String value = text.trim();
        try {
            Duration duration = parse(value);
            if (duration == null) {
                throw new PolicyException(property, text, "expected a duration such as 500ms, 60s, 2m, 1h or PT60S");
            }
            return duration;
        } catch (NumberFormatException | DateTimeParseException e) {
            throw new PolicyException(property, text, "expected a duration such as 500ms, 60s, 2m, 1h or PT60S");
        } catch (ArithmeticException e) {
            throw new PolicyException(property, text, "the duration is out of range");
        }
    }

    /** {@code null} for an unknown unit. */
    private static Duration parse(String value) {
        if (value.startsWith("P") || value.startsWith("p")) {
            return Duration.parse(value);
        }
        if (value.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(value.substring(0, value.length() - 2).trim()));
        }
        char unit = value.isEmpty() ? ' ' : value.charAt(value.length() - 1);
        String number = value.substring(0, Math.max(0, value.length() - 1)).trim();
        return switch (unit) {
            case 's' -> Duration.ofSeconds(Long.parseLong(number));
            case 'm' -> Duration.ofMinutes(Long.parseLong(number));
            case 'h' -> Duration.ofHours(Long.parseLong(number));
            case 'd' -> Duration.ofDays(Long.parseLong(number));
            default -> null;
        };
    }
}
