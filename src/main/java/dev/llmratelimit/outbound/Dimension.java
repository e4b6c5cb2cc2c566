package dev.llmratelimit.outbound;

import java.util.List;

/**
 * What a bucket of a (provider, model) counts. Each has its own per-minute limit ({@link BucketLimits});
 * a call takes from every limited one at once, or from none.
 */
public enum Dimension {
    REQUESTS,
    /** Input and output together (OpenAI's TPM, Anthropic's combined token limit). */
    TOKENS,
    INPUT_TOKENS,
    OUTPUT_TOKENS;

    /** Every dimension, in the order the stores index them. */
    public static final List<Dimension> ALL = List.of(values());

    /** How much of this dimension {@code tokens} and {@code requests} amount to. */
    public long amount(Tokens tokens, long requests) {
        return switch (this) {
            case REQUESTS -> requests;
            case TOKENS -> tokens.total();
            case INPUT_TOKENS -> tokens.input();
            case OUTPUT_TOKENS -> tokens.output();
        };
    }
}
