package dev.llmratelimit.budget;

import dev.llmratelimit.policy.Durations;
import dev.llmratelimit.policy.PolicyException;

import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;
import java.util.Locale;

/**
 * How budget periods follow each other: calendar days, ISO weeks (from Monday) or months in a zone,
 * or periods of a fixed duration counted from an anchor. A period is named by its start, which is
 * part of every budget counter's identity, so a new period begins with fresh counters without any
 * scheduled reset.
 */
public final class BudgetPeriod {

    public static final String PERIOD = "llm.ratelimit.budget.period";
    public static final String ZONE = "llm.ratelimit.budget.zone";
    public static final String ANCHOR = "llm.ratelimit.budget.anchor";

    private enum Calendar { DAY, WEEK, MONTH }

    private final Calendar calendar;
    private final ZoneId zone;
    private final long durationMillis;
    private final long anchorMillis;
    /** The period last asked for: nearly every request falls into it, and a calendar period costs a zone calculation. */
    private volatile Window last = new Window(0, 0);

    private BudgetPeriod(Calendar calendar, ZoneId zone, long durationMillis, long anchorMillis) {
        this.calendar = calendar;
        this.zone = zone;
        this.durationMillis = durationMillis;
        this.anchorMillis = anchorMillis;
    }

    /** {@code budget.period} (default {@code month}), {@code budget.zone} (UTC), {@code budget.anchor} (1970-01-01T00:00:00Z). */
    public static BudgetPeriod parse(String periodText, String zoneText, String anchorText) {
        ZoneId zone;
        try {
            zone = ZoneId.of(zoneText.trim());
        } catch (DateTimeException e) {
            throw new PolicyException(ZONE, zoneText, "expected a time zone such as UTC or Europe/Berlin");
        }
        String period = periodText.trim().toLowerCase(Locale.ROOT);
        switch (period) {
            case "day", "week", "month" -> {
                return new BudgetPeriod(Calendar.valueOf(period.toUpperCase(Locale.ROOT)), zone, 0, 0);
            }
            default -> {
                Duration duration = period.endsWith("d") && !period.startsWith("p")
                        ? days(periodText) : Durations.parse(PERIOD, periodText);
                if (duration.toMillis() < 1000) {
                    throw new PolicyException(PERIOD, periodText, "a budget period lasts at least 1s");
                }
                return new BudgetPeriod(null, zone, duration.toMillis(), anchor(anchorText));
            }
        }
    }

    private static Duration days(String text) {
        try {
            return Duration.ofDays(Long.parseLong(text.trim().substring(0, text.trim().length() - 1)));
        } catch (NumberFormatException e) {
            throw new PolicyException(PERIOD, text, "expected day, week, month or a duration such as 30d, 1h, PT5S");
        }
    }

    private static long anchor(String text) {
        try {
            return Instant.parse(text.trim()).toEpochMilli();
        } catch (DateTimeParseException e) {
            throw new PolicyException(ANCHOR, text, "expected an instant such as 2026-01-01T00:00:00Z");
        }
    }

    /** The period that holds {@code nowMillis}: {@code [start, end)} in epoch milliseconds. */
    public Window at(long nowMillis) {
        Window cached = last;
        if (nowMillis >= cached.startMillis && nowMillis < cached.endMillis) {
            return cached;
        }
        Window computed = compute(nowMillis);
        last = computed;
        return computed;
    }

    private Window compute(long nowMillis) {
        if (calendar == null) {
            long index = Math.floorDiv(nowMillis - anchorMillis, durationMillis);
            long start = anchorMillis + index * durationMillis;
            return new Window(start, start + durationMillis);
        }
        ZonedDateTime now = Instant.ofEpochMilli(nowMillis).atZone(zone);
        ZonedDateTime start = switch (calendar) {
            case DAY -> now.truncatedTo(ChronoUnit.DAYS);
            case WEEK -> now.truncatedTo(ChronoUnit.DAYS).with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
            case MONTH -> now.truncatedTo(ChronoUnit.DAYS).withDayOfMonth(1);
        };
        ZonedDateTime end = switch (calendar) {
            case DAY -> start.plusDays(1);
            case WEEK -> start.plusWeeks(1);
            case MONTH -> start.plusMonths(1);
        };
        // local midnights: a day around a change of daylight saving time lasts 23 or 25 hours
        return new Window(start.toInstant().toEpochMilli(), end.toInstant().toEpochMilli());
    }

    /** One budget period, {@code [startMillis, endMillis)}. */
    public record Window(long startMillis, long endMillis) {

        /** Whole seconds from {@code nowMillis} to the end, at least 1. */
        public long secondsLeft(long nowMillis) {
            return Math.max(1, (endMillis - nowMillis + 999) / 1000);
        }
    }
}
