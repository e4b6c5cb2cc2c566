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
    /** The windowed dimensions limited, in index order: all a rule, a store or the headers visit. */
    private final Dimension[] limited;
    /** The index and the limit of each of {@link #limited}: what the hot loops read, without a hop through the dimension. */
    private final int[] limitedIndex;
    private final long[] limitedValue;
    private final boolean limitsAnyTokens;
    private final long parallel;
    private final long micros;

    /** @param windowed one limit per {@link Dimension#WINDOWED}, in its order */
    public Limits(long[] windowed, long parallel, long micros) {
        if (windowed.length != Dimension.WINDOWED.size()) {
            throw new IllegalArgumentException("One limit per windowed dimension");
        }
        this.windowed = windowed.clone();
        Dimension[] found = new Dimension[windowed.length];
        int count = 0;
        boolean tokens = false;
        for (Dimension dimension : Dimension.WINDOWED) {
            if (this.windowed[dimension.index()] >= 0) {
                found[count++] = dimension;
                tokens |= dimension.isTokens();
            }
        }
        this.limited = count == found.length ? found : Arrays.copyOf(found, count);
        this.limitedIndex = new int[count];
        this.limitedValue = new long[count];
        for (int k = 0; k < count; k++) {
            limitedIndex[k] = limited[k].index();
            limitedValue[k] = this.windowed[limitedIndex[k]];
        }
        this.limitsAnyTokens = tokens;
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
        return limitsAnyTokens;
    }

    /** Whether any windowed dimension is limited (the group needs a window). */
    public boolean limitsWindowed() {
        return limited.length > 0;
    }

    /** How many windowed dimensions are limited. */
    public int limitedCount() {
        return limited.length;
    }

    /**
     * The {@code k}th limited windowed dimension, in index order ({@code k < limitedCount()}): loops
     * over these visit only what the group limits.
     */
    public Dimension limited(int k) {
        return limited[k];
    }

    /** The {@link Dimension#index()} of the {@code k}th limited windowed dimension. */
    public int limitedIndex(int k) {
        return limitedIndex[k];
    }

    /** The limit of the {@code k}th limited windowed dimension. */
    public long limitedValue(int k) {
        return limitedValue[k];
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
        for (Dimension dimension : limited) {
            text.append(dimension.configName()).append('=').append(of(dimension)).append(", ");
        }
        return text.append("parallel=").append(parallel).append(", micros=").append(micros).append(']').toString();
    }
}
