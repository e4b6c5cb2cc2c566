package dev.llmratelimit.engine;

import java.util.List;

/**
 * What a limit counts: the registry of dimensions. The first four are counted per window and are
 * data all the way through (plans, both stores, the rule, headers and messages iterate over
 * {@link #WINDOWED}); a parallel-request limit counts slots in flight and a budget money per period.
 */
public enum Dimension {
    REQUESTS("requests", "requests", 'r', "requests", "RPM", false),
    /** Tokens as {@code rate-limit-type} counts them. */
    TOKENS("tokens", "tokens", 't', "tokens", "TPM", true),
    /** Prompt tokens as the provider counts them against its input limit. */
    INPUT_TOKENS("input_tokens", "input-tokens", 'i', "input-tokens", "ITPM", true),
    /** Completion tokens, reasoning included. */
    OUTPUT_TOKENS("output_tokens", "output-tokens", 'o', "output-tokens", "OTPM", true),
    PARALLEL_REQUESTS("parallel_requests", "parallel-requests", '-', "", "", false),
    MONEY("budget", "budget", '-', "", "", false);

    /** The dimensions counted per window, in index order ({@link #index()}). */
    public static final List<Dimension> WINDOWED = List.of(REQUESTS, TOKENS, INPUT_TOKENS, OUTPUT_TOKENS);
    /** The windowed dimensions that count tokens (settled to a response's usage). */
    public static final List<Dimension> TOKEN_DIMENSIONS = WINDOWED.stream().filter(Dimension::isTokens).toList();

    private final String label;
    private final String configName;
    private final char field;
    private final String headerSuffix;
    private final String capacityName;
    private final boolean tokens;

    Dimension(String label, String configName, char field, String headerSuffix, String capacityName, boolean tokens) {
        this.label = label;
        this.configName = configName;
        this.field = field;
        this.headerSuffix = headerSuffix;
        this.capacityName = capacityName;
        this.tokens = tokens;
    }

    /** The name in 429 messages and metrics: {@code requests}, {@code input_tokens}, ... */
    public String label() {
        return label;
    }

    /** The name in configuration ({@code limits.<name>.<duration>}): {@code requests}, {@code input-tokens}, ... */
    public String configName() {
        return configName;
    }

    /** The letter of its counter in store fields (windowed dimensions only). */
    public char field() {
        return field;
    }

    /** A model's capacity of it in 429 messages ({@code Model OTPM: 8000}), as LiteLLM names TPM and RPM. */
    public String capacityName() {
        return capacityName;
    }

    /** The end of its response header names: {@code x-ratelimit-limit-<suffix>}. */
    public String headerSuffix() {
        return headerSuffix;
    }

    /** Its position in per-dimension arrays (windowed dimensions only). */
    public int index() {
        return ordinal();
    }

    public boolean isWindowed() {
        return ordinal() < WINDOWED.size();
    }

    /** Whether it counts tokens of some kind (checked as tokens: a reservation must fit). */
    public boolean isTokens() {
        return tokens;
    }

    /** The windowed dimension of a configuration name, {@code null} if there is none. */
    public static Dimension ofConfigName(String name) {
        for (Dimension dimension : WINDOWED) {
            if (dimension.configName.equals(name)) {
                return dimension;
            }
        }
        return null;
    }
}
