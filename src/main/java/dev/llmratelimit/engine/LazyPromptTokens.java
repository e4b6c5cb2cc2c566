package dev.llmratelimit.engine;

import java.util.function.LongSupplier;

/** {@link PromptTokens} that runs its tokenizer once, on the first {@link #count()}. */
final class LazyPromptTokens implements PromptTokens {

    private static final long NOT_COUNTED = -1;

    private final LongSupplier tokenizer;
    private final long upperBound;
    private volatile long counted = NOT_COUNTED;

    LazyPromptTokens(LongSupplier tokenizer, long upperBound) {
        this.tokenizer = tokenizer;
        this.upperBound = upperBound;
    }

    @Override
    public long count() {
        long tokens = counted;
        if (tokens == NOT_COUNTED) {
            synchronized (this) {
                tokens = counted;
                if (tokens == NOT_COUNTED) {
                    tokens = Math.min(upperBound, Saturating.clamp(Math.max(0, tokenizer.getAsLong())));
                    counted = tokens;
                }
            }
        }
        return tokens;
    }

    @Override
    public long upperBound() {
        return upperBound;
    }
}
