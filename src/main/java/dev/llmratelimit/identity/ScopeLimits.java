package dev.llmratelimit.identity;

import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.RateLimit;
import dev.llmratelimit.engine.ThrottledLog;
import dev.llmratelimit.policy.LimitNames;
import dev.llmratelimit.policy.PolicyException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The per-caller limits of one scope: its limits per window ({@code rpm-limit}, {@code tpm-limit},
 * {@code itpm-limit}, {@code otpm-limit}, {@code rpd-limit}, {@code tpd-limit},
 * {@code limits.<dimension>.<duration>}) and requests in flight ({@code max-parallel-requests}).
 * A limit not set is unlimited unless a configured default fills it; a parallel limit of 0 is not set.
 *
 * @param limits kept in a fixed order (dimension, then window), so equal settings are equal
 */
public record ScopeLimits(List<RateLimit> limits, long maxParallelRequests) {

    private static final Comparator<RateLimit> ORDER = Comparator.comparing(RateLimit::dimension)
            .thenComparingLong(RateLimit::windowMillis);

    public static final ScopeLimits NONE = new ScopeLimits(List.of(), 0);

    public static final String MAX_PARALLEL_REQUESTS = "max-parallel-requests";

    private static final ThrottledLog INVALID_METADATA = new ThrottledLog(ScopeLimits.class, System.Logger.Level.WARNING);

    public ScopeLimits {
        limits = limits.stream().sorted(ORDER).toList();
    }

    /** Requests and tokens per configured window (0: not set) and requests in flight. */
    public ScopeLimits(long rpmLimit, long tpmLimit, long maxParallelRequests) {
        this(RateLimit.perConfiguredWindow(rpmLimit, tpmLimit), maxParallelRequests);
    }

    public boolean isEmpty() {
        return limits.isEmpty() && maxParallelRequests == 0;
    }

    /** Each limit this one does not set is taken from {@code fallback}. */
    public ScopeLimits orElse(ScopeLimits fallback) {
        if (fallback.isEmpty()) {
            return this;
        }
        if (isEmpty()) {
            return fallback;
        }
        List<RateLimit> merged = new ArrayList<>(limits);
        for (RateLimit limit : fallback.limits) {
            if (merged.stream().noneMatch(limit::sameKind)) {
                merged.add(limit);
            }
        }
        return new ScopeLimits(merged, maxParallelRequests != 0 ? maxParallelRequests : fallback.maxParallelRequests);
    }

    /** Whether {@code setting} (the name's parts after the scope's name) is a limit of a caller scope. */
    public static boolean isLimitName(List<String> setting) {
        return setting.equals(List.of(MAX_PARALLEL_REQUESTS)) || LimitNames.isLimitName(setting, LimitNames.CALLER_SUFFIX);
    }

    /** This limits with {@code setting} (a limit name, see {@link #isLimitName}) set from configuration. */
    public ScopeLimits with(List<String> setting, String property, String value) {
        long limit = parseConfigured(property, value);
        if (setting.equals(List.of(MAX_PARALLEL_REQUESTS))) {
            return new ScopeLimits(limits, limit);
        }
        RateLimit set = LimitNames.parse(setting, LimitNames.CALLER_SUFFIX, property, value, limit);
        List<RateLimit> others = new ArrayList<>(limits);
        others.removeIf(set::sameKind);
        others.add(set);
        return new ScopeLimits(others, maxParallelRequests);
    }

    /**
     * The limits in a metadata map or a JSON object claim: the members {@code rpm-limit},
     * {@code tpm-limit}, {@code itpm-limit}, {@code otpm-limit}, {@code rpd-limit},
     * {@code tpd-limit} and {@code max-parallel-requests}, and the general form, either as members
     * named {@code limits.<dimension>.<duration>} or as a {@code limits} object of dimensions, each
     * an object of durations. Metadata is runtime data, not start-up configuration: a value that
     * is not a whole number of at least 1, an unknown dimension, a bad duration and every limit past
     * the {@value #MAX_METADATA_LIMITS}th are ignored (logged, rate-limited).
     */
    public static ScopeLimits fromMetadata(Object metadata) {
        if (!(metadata instanceof Map<?, ?> map) || map.isEmpty()) {
            return NONE;
        }
        MetadataLimits limits = new MetadataLimits();
        for (String name : LimitNames.SHORT_NAMES) {
            String member = name + LimitNames.CALLER_SUFFIX;
            long amount = metadataLimit(map.get(member), member);
            if (amount > 0) {
                limits.read.add(LimitNames.parse(List.of(member), LimitNames.CALLER_SUFFIX, member, "", amount));
            }
        }
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            if (entry.getKey() instanceof String member && member.startsWith(GENERAL_PREFIX)) {
                String name = member.substring(GENERAL_PREFIX.length());
                int dot = name.indexOf('.');
                Dimension dimension = limits.windowed(dot < 0 ? name : name.substring(0, dot));
                if (dimension != null) {
                    limits.add(dimension, dot < 0 ? "" : name.substring(dot + 1), entry.getValue());
                }
            }
        }
        Object byDimension = map.get(LimitNames.LIMITS);
        if (byDimension != null) {
            addLimitsObject(limits, byDimension);
        }
        long parallel = metadataLimit(map.get(MAX_PARALLEL_REQUESTS), MAX_PARALLEL_REQUESTS);
        return limits.read.isEmpty() && parallel == 0 ? NONE : new ScopeLimits(limits.read, parallel);
    }

    /** The metadata members of the general form start with this ({@code limits.}). */
    private static final String GENERAL_PREFIX = LimitNames.LIMITS + ".";

    /**
     * At most this many limits (of every name and window together) are read from one scope's
     * metadata, an invalid one and one of a window read already counted too: each is a counter every
     * request of the caller touches, and each is read again on every request.
     */
    static final int MAX_METADATA_LIMITS = 16;

    /** Adds the limits of a {@code limits} object: {@code {"<dimension>": {"<duration>": amount}}}. */
    private static void addLimitsObject(MetadataLimits limits, Object byDimension) {
        if (!(byDimension instanceof Map<?, ?> dimensions)) {
            INVALID_METADATA.log("Ignored a caller's metadata " + LimitNames.LIMITS + " that is not an object", null);
            return;
        }
        for (Map.Entry<?, ?> entry : dimensions.entrySet()) {
            Dimension dimension = limits.windowed(String.valueOf(entry.getKey()));
            if (dimension == null) {
                continue;
            }
            if (!(entry.getValue() instanceof Map<?, ?> byDuration)) {
                limits.reject(GENERAL_PREFIX + dimension.configName() + " that is not an object of durations");
                continue;
            }
            for (Map.Entry<?, ?> duration : byDuration.entrySet()) {
                limits.add(dimension, String.valueOf(duration.getKey()), duration.getValue());
            }
        }
    }

    /**
     * The limits read from one scope's metadata, and how many entries of the general form were
     * invalid. What is logged names at most a dimension: metadata text may be anything (a claim's).
     */
    private static final class MetadataLimits {
        final List<RateLimit> read = new ArrayList<>(2);
        private int rejected;

        /** The windowed dimension of a metadata name; {@code null} (rejected) for none. */
        Dimension windowed(String name) {
            Dimension dimension = Dimension.ofConfigName(name);
            if (dimension == null) {
                reject("limit of an unknown dimension (expected " + LimitNames.LIMITS + ".<dimension>.<duration>, dimension "
                        + LimitNames.DIMENSION_NAMES + ")");
            }
            return dimension;
        }

        /**
         * Adds the limit of {@code value} per {@code duration}, unless it is invalid or one too many;
         * of two of the same window, the lower stays.
         */
        void add(Dimension dimension, String duration, Object value) {
            String member = GENERAL_PREFIX + dimension.configName() + ".<duration>";
            if (full()) {
                return;
            }
            long window;
            try {
                window = LimitNames.windowMillis(member, "", duration);
            } catch (PolicyException e) {
                reject(member + " whose duration is not a window of 1ms to " + LimitNames.LONGEST_WINDOW.toDays() + " days");
                return;
            }
            long amount = metadataLimit(value, member);
            if (amount == 0) {
                rejected++;
                return;
            }
            RateLimit limit = new RateLimit(dimension, window, amount);
            for (int i = 0; i < read.size(); i++) {
                if (read.get(i).sameKind(limit)) {
                    read.set(i, read.get(i).amount() <= amount ? read.get(i) : limit);
                    rejected++;
                    return;
                }
            }
            read.add(limit);
        }

        /** Logs an invalid entry, which counts toward {@link #MAX_METADATA_LIMITS}. */
        void reject(String what) {
            if (!full()) {
                rejected++;
                INVALID_METADATA.log("Ignored a caller's metadata " + what, null);
            }
        }

        private boolean full() {
            if (read.size() + rejected < MAX_METADATA_LIMITS) {
                return false;
            }
            INVALID_METADATA.log("Ignored a caller's metadata limit: at most " + MAX_METADATA_LIMITS
                    + " limits are read from one scope's metadata", null);
            return true;
        }
    }

    private static long metadataLimit(Object value, String name) {
        String text = ClaimValues.text(value);
        if (text == null) {
            return 0;
        }
        long amount = parseOrZero(text);
        if (amount == 0) {
            INVALID_METADATA.log("Ignored a caller's metadata " + name + " that is not a whole number of at least 1", null);
        }
        return amount;
    }

    private static long parseConfigured(String property, String value) {
        long parsed = parseOrZero(value == null ? "" : value.trim());
        if (parsed == 0) {
            throw new PolicyException(property, value, "expected a whole number of at least 1 (leave it out for no limit)");
        }
        return parsed;
    }

    private static long parseOrZero(String text) {
        try {
            return Math.max(0, Long.parseLong(text));
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
