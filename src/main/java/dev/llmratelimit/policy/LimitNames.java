package dev.llmratelimit.policy;

import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.RateLimit;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The configuration names of limits per window, for models ({@code rpm}, ...) and caller scopes
 * (the same with {@code -limit}): the short names and the general form
 * {@code limits.<dimension>.<duration>}. Every name resolves to a {@link RateLimit}.
 */
public final class LimitNames {

    /** The general form's first name part. */
    public static final String LIMITS = "limits";
    /** The ending of a caller scope's short names ({@code rpm-limit}). */
    public static final String CALLER_SUFFIX = "-limit";

    private static final long DAY = Duration.ofDays(1).toMillis();

    /** The longest window a limit may be counted in: ten years. */
    public static final Duration LONGEST_WINDOW = Duration.ofDays(3653);

    /** Short name to dimension and window ({@link RateLimit#CONFIGURED_WINDOW}: the configured window). */
    private static final Map<String, RateLimit> SHORT = Map.of(
            "rpm", new RateLimit(Dimension.REQUESTS, RateLimit.CONFIGURED_WINDOW, 0),
            "tpm", new RateLimit(Dimension.TOKENS, RateLimit.CONFIGURED_WINDOW, 0),
            "itpm", new RateLimit(Dimension.INPUT_TOKENS, RateLimit.CONFIGURED_WINDOW, 0),
            "otpm", new RateLimit(Dimension.OUTPUT_TOKENS, RateLimit.CONFIGURED_WINDOW, 0),
            "rpd", new RateLimit(Dimension.REQUESTS, DAY, 0),
            "tpd", new RateLimit(Dimension.TOKENS, DAY, 0));

    /** The short names of models, in the order messages list them. */
    public static final List<String> SHORT_NAMES = List.of("rpm", "tpm", "itpm", "otpm", "rpd", "tpd");

    /** The configuration names of the windowed dimensions, for messages: {@code requests, tokens, input-tokens or output-tokens}. */
    public static final String DIMENSION_NAMES = inWords(Dimension.WINDOWED.stream().map(Dimension::configName).toList());

    private LimitNames() {
    }

    /** {@code a, b, c or d}. */
    private static String inWords(List<String> names) {
        int last = names.size() - 1;
        return String.join(", ", names.subList(0, last)) + " or " + names.get(last);
    }

    /** Whether {@code name} (the parts after the scope) names a limit per window; {@code suffix} is {@code ""} or {@link #CALLER_SUFFIX}. */
    public static boolean isLimitName(List<String> name, String suffix) {
        if (name.size() == 1) {
            String key = name.get(0);
            return key.endsWith(suffix) && SHORT.containsKey(key.substring(0, key.length() - suffix.length()));
        }
        return name.size() == 3 && name.get(0).equals(LIMITS);
    }

    /**
     * The limit a name and value configure.
     *
     * @param name     the name's parts after the scope: one short name, or {@code limits, <dimension>, <duration>}
     * @param suffix   {@code ""} for a model, {@link #CALLER_SUFFIX} for a caller scope
     * @param property the whole property name, for errors
     * @param amount   the value, already checked
     * @throws PolicyException for a name that is no limit, an unknown dimension or a bad duration
     */
    public static RateLimit parse(List<String> name, String suffix, String property, String value, long amount) {
        if (name.size() == 1 && isLimitName(name, suffix)) {
            String key = name.get(0);
            RateLimit kind = SHORT.get(key.substring(0, key.length() - suffix.length()));
            return new RateLimit(kind.dimension(), kind.windowMillis(), amount);
        }
        if (name.size() != 3 || !name.get(0).equals(LIMITS)) {
            throw new PolicyException(property, value, "not a limit name");
        }
        Dimension dimension = Dimension.ofConfigName(name.get(1));
        if (dimension == null) {
            throw new PolicyException(property, value, "unknown dimension '" + name.get(1)
                    + "' (expected " + DIMENSION_NAMES + ")");
        }
        return new RateLimit(dimension, windowMillis(property, value, name.get(2)), amount);
    }

    /**
     * The length of a window a limit is counted in, at least 1 ms and at most {@link #LONGEST_WINDOW}
     * (a window's end is its start plus its length, on every store's clock).
     *
     * @param value    the property's value, for errors
     * @param duration the window's length as written
     * @throws PolicyException for a bad duration or one out of range
     */
    public static long windowMillis(String property, String value, String duration) {
        Duration window = Durations.parse(property, duration);
        if (window.isNegative() || window.isZero()) {
            throw new PolicyException(property, value, "the window must be longer than zero");
        }
        if (window.compareTo(LONGEST_WINDOW) > 0) {
            throw new PolicyException(property, value, "the window must be at most " + LONGEST_WINDOW.toDays() + " days");
        }
        if (window.toMillis() == 0) {
            throw new PolicyException(property, value, "the window must be at least 1ms");
        }
        return window.toMillis();
    }

    /** The model's name of a limit's kind: its short name where it has one ({@code otpm}), else {@code limits.<dimension>.<duration>}. */
    public static String nameOf(RateLimit limit) {
        for (String name : SHORT_NAMES) {
            if (SHORT.get(name).sameKind(limit)) {
                return name;
            }
        }
        return LIMITS + "." + limit.dimension().configName() + "." + Durations.format(limit.windowMillis());
    }

    /** The same limit with its window written as {@link RateLimit#CONFIGURED_WINDOW} where it is the configured one. */
    public static RateLimit normalized(RateLimit limit, long configuredWindowMillis) {
        return limit.windowMillis() == configuredWindowMillis
                ? new RateLimit(limit.dimension(), RateLimit.CONFIGURED_WINDOW, limit.amount()) : limit;
    }
}
