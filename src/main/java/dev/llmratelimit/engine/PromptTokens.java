package dev.llmratelimit.engine;

import java.util.function.LongSupplier;

/**
 * The prompt tokens of a request, counted only if a decision needs them: {@link #count()} runs the
 * tokenizer (possibly costly; at most once), {@link #upperBound()} is free (the body's byte length:
 * every BPE token is at least one byte).
 */
public interface PromptTokens {

    PromptTokens NONE = known(0);

    /** The prompt's tokens; the first call may run a tokenizer, later calls return the same figure. */
    long count();

    /** A figure never below {@link #count()}, known without a tokenizer. */
    long upperBound();

    static PromptTokens known(long tokens) {
        long clamped = Saturating.clamp(Math.max(0, tokens));
        return new PromptTokens() {
            @Override
            public long count() {
                return clamped;
            }

            @Override
            public long upperBound() {
                return clamped;
            }
        };
    }

    /** Counts with {@code tokenizer} on first use; {@code upperBound} must be at least what it returns. */
    static PromptTokens lazy(LongSupplier tokenizer, long upperBound) {
        return new LazyPromptTokens(tokenizer, Saturating.clamp(Math.max(0, upperBound)));
    }
}
