package dev.llmratelimit.usage;

import java.util.Objects;
import java.util.stream.Stream;

/**
 * Where one endpoint shape's {@code usage} object keeps its figures, and how they make a
 * {@link Usage}. The figures are collected in a {@code long[FIGURES]}, {@link #ABSENT} where missing.
 */
enum UsageFormat {
    /** Chat, legacy completions and embeddings (which report no completion tokens). */
    OPENAI("prompt_tokens", "completion_tokens", "prompt_tokens_details", "cached_tokens", null, "cached_tokens"),
    /** The Responses API. */
    RESPONSES("input_tokens", "output_tokens", "input_tokens_details", "cached_tokens", null, "cached_tokens"),
    /**
     * Anthropic Messages: {@code input_tokens} excludes the cache reads and writes, reported beside it;
     * {@code cache_creation} splits the writes by cache lifetime.
     */
    ANTHROPIC("input_tokens", "output_tokens", "cache_creation", "cache_read_input_tokens", "cache_creation_input_tokens",
            "ephemeral_1h_input_tokens");

    static final int INPUT = 0;
    static final int OUTPUT = 1;
    static final int CACHED = 2;
    static final int CACHE_CREATION = 3;
    /** Cache writes to the 1-hour cache (Anthropic), part of {@link #CACHE_CREATION}. */
    static final int CACHE_CREATION_1H = 4;
    static final int FIGURES = 5;
    /** A field that is no figure of this format. */
    static final int NONE = -1;
    static final long ABSENT = -1;

    private final String input;
    private final String output;
    /**
     * The object inside {@code usage} that holds one more figure ({@link #detailsFigure()}): OpenAI's
     * cached tokens, Anthropic's 1-hour cache writes.
     */
    private final String details;
    private final String cached;
    private final String cacheCreation;
    /** The field of the details object that holds its figure. */
    private final String detail;
    private final String[] fieldNames;

    UsageFormat(String input, String output, String details, String cached, String cacheCreation, String detail) {
        this.input = input;
        this.output = output;
        this.details = details;
        this.cached = cached;
        this.cacheCreation = cacheCreation;
        this.detail = detail;
        this.fieldNames = Stream.of("usage", input, output, details, cached, cacheCreation, detail)
                .filter(Objects::nonNull).distinct().toArray(String[]::new);
    }

    static UsageFormat of(EndpointShape shape) {
        return switch (shape) {
            case CHAT, COMPLETIONS, EMBEDDINGS -> OPENAI;
            case RESPONSES -> RESPONSES;
            case MESSAGES -> ANTHROPIC;
        };
    }

    /** The field names a usage of this format is read by: {@code usage} and those inside it. */
    String[] fieldNames() {
        return fieldNames.clone();
    }

    static long[] noFigures() {
        return new long[] {ABSENT, ABSENT, ABSENT, ABSENT, ABSENT};
    }

    /** The figure a field directly inside {@code usage} holds, or {@link #NONE}. */
    int figure(String field) {
        if (field.equals(input)) {
            return INPUT;
        }
        if (field.equals(output)) {
            return OUTPUT;
        }
        if (field.equals(cached) && detailsFigure() != CACHED) {
            return CACHED;
        }
        return field.equals(cacheCreation) ? CACHE_CREATION : NONE;
    }

    /** Whether the field of {@code usage} is the details object. */
    boolean isDetails(String field) {
        return field.equals(details);
    }

    /** The one figure the details object holds. */
    int detailsFigure() {
        return this == ANTHROPIC ? CACHE_CREATION_1H : CACHED;
    }

    /** The figure a field of the details object holds, or {@link #NONE}. */
    int detailFigure(String field) {
        return field.equals(detail) ? detailsFigure() : NONE;
    }

    /**
     * The usage of the collected figures (absent ones count as 0), or null when neither the input nor
     * the output figure is present. Cached tokens never exceed the prompt; sums saturate.
     */
    Usage usage(long[] figures) {
        if (figures[INPUT] == ABSENT && figures[OUTPUT] == ABSENT) {
            return null;
        }
        long in = Math.max(0, figures[INPUT]);
        long cachedTokens = Math.max(0, figures[CACHED]);
        long creation = Math.max(0, figures[CACHE_CREATION]);
        long prompt = this == ANTHROPIC ? plus(plus(in, cachedTokens), creation) : in;
        long writtenFor1h = Math.max(0, figures[CACHE_CREATION_1H]);
        return new Usage(prompt, Math.max(0, figures[OUTPUT]), Math.min(cachedTokens, prompt), Math.min(creation, prompt),
                writtenFor1h, this == ANTHROPIC);
    }

    private static long plus(long a, long b) {
        return a > Long.MAX_VALUE - b ? Long.MAX_VALUE : a + b;
    }
}
