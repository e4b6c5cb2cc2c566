package dev.llmratelimit.outbound;

/**
 * What a provider's answer tells the buckets, per {@link Dimension}; each figure is
 * {@link Figure#NONE} when the answer did not carry it. Applied downward only: a bucket is lowered to
 * agree, never raised.
 *
 * @param requests     the provider's request limit
 * @param tokens       its limit on input and output together
 * @param inputTokens  its input token limit
 * @param outputTokens its output token limit
 * @param pauseMillis  a 429's {@code retry-after}: nothing starts before that long from now; {@link #NONE}
 *                     without one
 */
public record Correction(Figure requests, Figure tokens, Figure inputTokens, Figure outputTokens, long pauseMillis) {

    public static final long NONE = -1;

    public static final Correction EMPTY = new Correction(Figure.NONE, Figure.NONE, Figure.NONE, Figure.NONE, NONE);

    /**
     * What is left of one of the provider's limits.
     *
     * @param remaining   what the provider says is left now, {@link Correction#NONE} when it said nothing
     * @param resetMillis in how long it is full again, {@link Correction#NONE} when it said nothing
     */
    public record Figure(long remaining, long resetMillis) {

        public static final Figure NONE = new Figure(Correction.NONE, Correction.NONE);

        boolean known() {
            return remaining != Correction.NONE;
        }

        /**
         * The smaller remaining of the two, with its reset: a call needs room in both. Of two alike,
         * the one whose reset comes later (it holds the bucket down longer); an unknown reset counts
         * as the earliest.
         */
        Figure least(Figure other) {
            return other.known() && (!known() || other.remaining < remaining
                    || other.remaining == remaining && other.resetMillis > resetMillis) ? other : this;
        }
    }

    public boolean isEmpty() {
        return equals(EMPTY);
    }

    public Figure figure(Dimension dimension) {
        return switch (dimension) {
            case REQUESTS -> requests;
            case TOKENS -> tokens;
            case INPUT_TOKENS -> inputTokens;
            case OUTPUT_TOKENS -> outputTokens;
        };
    }

    public Correction withPause(long millis) {
        return new Correction(requests, tokens, inputTokens, outputTokens, millis);
    }

    /**
     * The same for buckets of {@code limits}: an input or output figure whose dimension has no bucket of its
     * own lowers the token bucket instead (the least figure wins), since a call needs room in it too.
     */
    public Correction forLimits(BucketLimits limits) {
        Figure folded = tokens;
        if (!limits.limits(Dimension.INPUT_TOKENS)) {
            folded = folded.least(inputTokens);
        }
        if (!limits.limits(Dimension.OUTPUT_TOKENS)) {
            folded = folded.least(outputTokens);
        }
        return folded == tokens ? this : new Correction(requests, folded, inputTokens, outputTokens, pauseMillis);
    }
}
