package dev.llmratelimit.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * One configured limit: at most {@code amount} of a windowed {@link Dimension} per window of
 * {@code windowMillis}. A limit is data: every name of the configuration ({@code rpm},
 * {@code otpm}, {@code tpd-limit}, {@code limits.<dimension>.<duration>}) resolves to one.
 *
 * @param windowMillis the window's length; {@link #CONFIGURED_WINDOW} (0) for the configured {@code window}
 */
public record RateLimit(Dimension dimension, long windowMillis, long amount) {

    public static final long CONFIGURED_WINDOW = 0;

    public RateLimit {
        if (!dimension.isWindowed()) {
            throw new IllegalArgumentException(dimension + " is not counted per window");
        }
        if (windowMillis < 0) {
            throw new IllegalArgumentException("A window length is not negative");
        }
    }

    /** Requests and tokens per configured window, each left out when 0 (not set). */
    public static List<RateLimit> perConfiguredWindow(long requests, long tokens) {
        List<RateLimit> limits = new ArrayList<>(2);
        if (requests > 0) {
            limits.add(new RateLimit(Dimension.REQUESTS, CONFIGURED_WINDOW, requests));
        }
        if (tokens > 0) {
            limits.add(new RateLimit(Dimension.TOKENS, CONFIGURED_WINDOW, tokens));
        }
        return limits;
    }

    /** The window's length, the configured window standing in for {@link #CONFIGURED_WINDOW}. */
    public long windowMillis(long configuredWindowMillis) {
        return windowMillis == CONFIGURED_WINDOW ? configuredWindowMillis : windowMillis;
    }

    /** Whether this limits the same dimension over the same window as {@code other}. */
    public boolean sameKind(RateLimit other) {
        return dimension == other.dimension && windowMillis == other.windowMillis;
    }
}
