package dev.llmratelimit.testsupport;

import dev.llmratelimit.engine.PromptTokens;

import java.util.concurrent.atomic.AtomicInteger;

/** A prompt of known size whose "tokenizer" counts how often it runs. */
public final class CountingPromptTokens implements PromptTokens {

    private final long tokens;
    private final long upperBound;
    private final AtomicInteger counted = new AtomicInteger();

    public CountingPromptTokens(long tokens, long upperBound) {
        this.tokens = tokens;
        this.upperBound = upperBound;
    }

    @Override
    public long count() {
        counted.incrementAndGet();
        return tokens;
    }

    @Override
    public long upperBound() {
        return upperBound;
    }

    /** How often {@link #count()} ran. */
    public int tokenizerRuns() {
        return counted.get();
    }
}
