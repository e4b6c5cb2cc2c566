package dev.llmratelimit.identity;

import dev.llmratelimit.engine.ThrottledLog;
import dev.llmratelimit.policy.PolicyException;

import java.util.Map;

/**
 * The per-caller limits of one scope: requests per window ({@code rpm-limit}), tokens per window
 * ({@code tpm-limit}) and requests in flight ({@code max-parallel-requests}). 0 means not set, so
 * unlimited unless a configured default fills it.
 */
public record ScopeLimits(long rpmLimit, long tpmLimit, long maxParallelRequests) {

    public static final ScopeLimits NONE = new ScopeLimits(0, 0, 0);

    public static final String RPM_LIMIT = "rpm-limit";
    public static final String TPM_LIMIT = "tpm-limit";
    public static final String MAX_PARALLEL_REQUESTS = "max-parallel-requests";

    private static final ThrottledLog INVALID_METADATA = new ThrottledLog(ScopeLimits.class, System.Logger.Level.WARNING);

    public boolean isEmpty() {
        return rpmLimit == 0 && tpmLimit == 0 && maxParallelRequests == 0;
    }

    /** Each limit this one does not set is taken from {@code fallback}. */
    public ScopeLimits orElse(ScopeLimits fallback) {
        if (fallback.isEmpty() || (rpmLimit != 0 && tpmLimit != 0 && maxParallelRequests != 0)) {
            return this;
        }
        return new ScopeLimits(rpmLimit != 0 ? rpmLimit : fallback.rpmLimit,
                tpmLimit != 0 ? tpmLimit : fallback.tpmLimit,
                maxParallelRequests != 0 ? maxParallelRequests : fallback.maxParallelRequests);
    }

    /** Whether {@code setting} is one of the three limit names. */
    public static boolean isLimitName(String setting) {
        return setting.equals(RPM_LIMIT) || setting.equals(TPM_LIMIT) || setting.equals(MAX_PARALLEL_REQUESTS);
    }

    /** This limits with {@code setting} (one of the three names) set from configuration. */
    public ScopeLimits with(String setting, String property, String value) {
        long limit = parseConfigured(property, value);
        return switch (setting) {
            case RPM_LIMIT -> new ScopeLimits(limit, tpmLimit, maxParallelRequests);
            case TPM_LIMIT -> new ScopeLimits(rpmLimit, limit, maxParallelRequests);
            case MAX_PARALLEL_REQUESTS -> new ScopeLimits(rpmLimit, tpmLimit, limit);
            default -> throw new IllegalArgumentException(setting);
        };
    }

    /**
     * The limits in a metadata map or a JSON object claim (members {@code rpm-limit},
     * {@code tpm-limit}, {@code max-parallel-requests}); a value that is not a whole number of at
     * least 1 is ignored (logged, rate-limited): metadata is runtime data, not start-up configuration.
     */
    public static ScopeLimits fromMetadata(Object metadata) {
        if (!(metadata instanceof Map<?, ?> map) || map.isEmpty()) {
            return NONE;
        }
        long rpm = metadataLimit(map, RPM_LIMIT);
        long tpm = metadataLimit(map, TPM_LIMIT);
        long parallel = metadataLimit(map, MAX_PARALLEL_REQUESTS);
        return rpm == 0 && tpm == 0 && parallel == 0 ? NONE : new ScopeLimits(rpm, tpm, parallel);
    }

    private static long metadataLimit(Map<?, ?> metadata, String name) {
        String text = ClaimValues.textIn(metadata, name);
        if (text == null) {
            return 0;
        }
        long value = parseOrZero(text);
        if (value == 0) {
            INVALID_METADATA.log("Ignored a caller's metadata " + name + " that is not a whole number of at least 1", null);
        }
        return value;
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
