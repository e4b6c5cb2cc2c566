package dev.llmratelimit.engine;

import java.util.Arrays;

/**
 * What an admitted request adds to one group: per windowed {@link Dimension} its request and its
 * reserved tokens, its reserved micro-dollars (0 when nothing is reserved: tokens are then only
 * checked and recorded after the call) and one parallel slot.
 */
public final class Increments {

    private final long[] windowed;
    private final long micros;
    private final boolean slot;
    private final boolean reservesTokens;

    /** @param windowed one figure per {@link Dimension#WINDOWED}, in its order */
    public Increments(long[] windowed, long micros, boolean slot) {
        if (windowed.length != Dimension.WINDOWED.size()) {
            throw new IllegalArgumentException("One increment per windowed dimension");
        }
        this.windowed = new long[windowed.length];
        boolean tokens = false;
        for (int i = 0; i < windowed.length; i++) {
            this.windowed[i] = Saturating.clamp(windowed[i]);
            tokens |= Dimension.WINDOWED.get(i).isTokens() && this.windowed[i] > 0;
        }
        this.micros = Saturating.clamp(micros);
        this.slot = slot;
        this.reservesTokens = tokens;
    }

    /** Requests and tokens (as {@code rate-limit-type} counts them), no input or output tokens. */
    public Increments(long requests, long tokens, long micros, boolean slot) {
        this(new long[] {requests, tokens, 0, 0}, micros, slot);
    }

    public long of(Dimension dimension) {
        return dimension == Dimension.MONEY ? micros : windowed[dimension.index()];
    }

    /** The figure of the windowed dimension at {@code index}. */
    public long ofIndex(int index) {
        return windowed[index];
    }

    public long requests() {
        return windowed[Dimension.REQUESTS.index()];
    }

    public long tokens() {
        return windowed[Dimension.TOKENS.index()];
    }

    public long micros() {
        return micros;
    }

    public boolean slot() {
        return slot;
    }

    /** Whether any kind of tokens is reserved. */
    public boolean reservesTokens() {
        return reservesTokens;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Increments that && Arrays.equals(windowed, that.windowed) && micros == that.micros
                && slot == that.slot;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(windowed) * 31 + Long.hashCode(micros) + (slot ? 1 : 0);
    }

    @Override
    public String toString() {
        return "Increments" + Arrays.toString(windowed) + "[micros=" + micros + ", slot=" + slot + "]";
    }
}
