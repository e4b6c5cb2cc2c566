package dev.llmratelimit.engine;

import java.util.Arrays;

/**
 * The limits of one counter group: one per windowed {@link Dimension} (in the group's window),
 * parallel requests and micro-dollars per budget period; {@link #NONE} ({@code -1}) where the group
 * does not limit that dimension. A limit of 0 allows nothing (a pool with no share, a budget of 0).
 */
public final class Limits {

    public static final long NONE = -1;

    public static final Limits UNLIMITED = new Limits(NONE, NONE, NONE, NONE);

    private final long[] windowed;
    private final long parallel;
    private final long micros;

    /** @param windowed one limit per {@link Dimension#WINDOWED}, in its order */
    public Limits(long[] windowed, long parallel, long micros) {
        if (windowed.length != Dimension.WINDOWED.size()) {
            throw new IllegalArgumentException("One limit per windowed dimension");
        }
        this.windowed = windowed.clone();
        this.parallel = parallel;
        this.micros = micros;
    }

    /** Requests and tokens per window, parallel requests, micro-dollars per period. */
    public Limits(long requests, long tokens, long parallel, long micros) {
        this(new long[] {requests, tokens, NONE, NONE}, parallel, micros);
    }

    public long requests() {
        return windowed[Dimension.REQUESTS.index()];
    }

    public long tokens() {
        return windowed[Dimension.TOKENS.index()];
    }

    public long parallel() {
        return parallel;
    }

    public long micros() {
        return micros;
    }

    public boolean limitsRequests() {
        return requests() >= 0;
    }

    public boolean limitsTokens() {
        return tokens() >= 0;
    }

    /** Whether any kind of tokens is limited. */
    public boolean limitsAnyTokens() {
        for (Dimension dimension : Dimension.WINDOWED) {
            if (dimension.isTokens() && limits(dimension)) {
                return true;
            }
        }
        return false;
    }

    /** Whether any windowed dimension is limited (the group needs a window). */
    public boolean limitsWindowed() {
        for (long limit : windowed) {
            if (limit >= 0) {
                return true;
            }
        }
        return false;
    }

    public boolean limitsParallel() {
        return parallel >= 0;
    }

    public boolean limitsMoney() {
        return micros >= 0;
    }

    public boolean limits(Dimension dimension) {
        return of(dimension) >= 0;
    }

    /** The limit of one dimension, {@link #NONE} if not limited. */
    public long of(Dimension dimension) {
        int index = dimension.index();
        if (index < windowed.length) {
            return windowed[index];
        }
        return dimension == Dimension.PARALLEL_REQUESTS ? parallel : micros;
    }

    /** A configured limit where 0 means "not set" (per-caller limits) as a {@link Limits} figure. */
    public static long configured(long limit) {
        return limit > 0 ? limit : NONE;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Limits that && Arrays.equals(windowed, that.windowed) && parallel == that.parallel
                && micros == that.micros;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(windowed) * 31 + Long.hashCode(parallel) * 7 + Long.hashCode(micros);
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("Limits[");
        for (Dimension dimension : Dimension.WINDOWED) {
            if (limits(dimension)) {
                text.append(dimension.configName()).append('=').append(of(dimension)).append(", ");
            }
        }
        return text.append("parallel=").append(parallel).append(", micros=").append(micros).append(']').toString();
    }
}
