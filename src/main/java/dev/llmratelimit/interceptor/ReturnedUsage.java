package dev.llmratelimit.interceptor;

import dev.llmratelimit.usage.JsonUsageParser;
import dev.llmratelimit.usage.Usage;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The usage a complete return value carries, in the shape of any endpoint (docs/endpoints.md): a
 * {@link Usage}; a JSON response body ({@code String} or {@code byte[]}; its shape told by
 * {@link JsonUsageParser#parseAnyShape}); a {@code Map} with a {@code "usage"} map; or an object with
 * a {@code usage()}/{@code getUsage()} accessor (an {@code Optional} is unwrapped) whose value is one
 * of these or exposes the figures as accessors (bean-style getters too): OpenAI's
 * {@code promptTokens()}, {@code completionTokens()}, {@code promptTokensDetails().cachedTokens()}
 * (openai-java's {@code ChatCompletion}, {@code Completion}, {@code CreateEmbeddingResponse}); the
 * Responses API's {@code inputTokens()}, {@code outputTokens()},
 * {@code inputTokensDetails().cachedTokens()}; Anthropic's {@code inputTokens()},
 * {@code outputTokens()}, {@code cacheReadInputTokens()}, {@code cacheCreationInputTokens()}
 * (anthropic-java's {@code Message}). Maps use the same figures' JSON names.
 */
final class ReturnedUsage {

    private static final Accessors USAGE = new Accessors("usage", "getUsage");
    private static final Accessors PROMPT = new Accessors("promptTokens", "getPromptTokens");
    private static final Accessors COMPLETION = new Accessors("completionTokens", "getCompletionTokens");
    private static final Accessors DETAILS = new Accessors("promptTokensDetails", "getPromptTokensDetails");
    private static final Accessors CACHED = new Accessors("cachedTokens", "getCachedTokens");
    private static final Accessors INPUT = new Accessors("inputTokens", "getInputTokens");
    private static final Accessors OUTPUT = new Accessors("outputTokens", "getOutputTokens");
    private static final Accessors INPUT_DETAILS = new Accessors("inputTokensDetails", "getInputTokensDetails");
    private static final Accessors CACHE_READ = new Accessors("cacheReadInputTokens", "getCacheReadInputTokens");
    private static final Accessors CACHE_CREATION = new Accessors("cacheCreationInputTokens", "getCacheCreationInputTokens");

    private ReturnedUsage() {
    }

    /** The usage, or {@code null} when the value carries none. */
    static Usage of(Object value) {
        if (value instanceof Usage usage) {
            return usage;
        }
        if (value instanceof String json) {
            byte[] body = json.getBytes(StandardCharsets.UTF_8);
            return JsonUsageParser.parseAnyShape(body, body.length).orElse(null);
        }
        if (value instanceof byte[] body) {
            return JsonUsageParser.parseAnyShape(body, body.length).orElse(null);
        }
        if (value instanceof Map<?, ?> map) {
            return map.get("usage") instanceof Map<?, ?> usage ? fromMap(usage) : null;
        }
        if (value == null || value instanceof CharSequence || value instanceof Number || value instanceof Boolean) {
            return null;
        }
        return fromUsageObject(USAGE.read(value));
    }

    private static Usage fromUsageObject(Object usage) {
        if (usage == null) {
            return null;
        }
        if (usage instanceof Usage known) {
            return known;
        }
        if (usage instanceof Map<?, ?> map) {
            return fromMap(map);
        }
        long prompt = count(PROMPT.read(usage));
        if (prompt >= 0 || count(COMPLETION.read(usage)) >= 0) {
            Object details = DETAILS.read(usage);
            return tokens(prompt, count(COMPLETION.read(usage)), details == null ? 0 : count(CACHED.read(details)), 0, 0);
        }
        Object details = INPUT_DETAILS.read(usage);
        return tokens(count(INPUT.read(usage)), count(OUTPUT.read(usage)),
                details == null ? 0 : count(CACHED.read(details)),
                count(CACHE_READ.read(usage)), count(CACHE_CREATION.read(usage)));
    }

    private static Usage fromMap(Map<?, ?> usage) {
        if (usage.containsKey("prompt_tokens") || usage.containsKey("completion_tokens")) {
            return tokens(count(usage.get("prompt_tokens")), count(usage.get("completion_tokens")),
                    detail(usage.get("prompt_tokens_details")), 0, 0);
        }
        return tokens(count(usage.get("input_tokens")), count(usage.get("output_tokens")),
                detail(usage.get("input_tokens_details")),
                count(usage.get("cache_read_input_tokens")), count(usage.get("cache_creation_input_tokens")));
    }

    private static long detail(Object details) {
        return details instanceof Map<?, ?> map ? count(map.get("cached_tokens")) : 0;
    }

    /**
     * As the JSON parser: absent counts are 0, but a usage needs an input or an output count. Anthropic's
     * input excludes its cache reads and writes ({@code cacheRead}, {@code cacheCreation}); they are part of
     * the prompt here, the reads as cached.
     */
    private static Usage tokens(long input, long output, long cachedInInput, long cacheRead, long cacheCreation) {
        if (input < 0 && output < 0) {
            return null;
        }
        long read = Math.max(0, cacheRead);
        long creation = Math.max(0, cacheCreation);
        long prompt = Math.max(0, input) + read + creation;
        long cached = Math.min(Math.max(0, cachedInInput) + read, prompt);
        return new Usage(prompt, Math.max(0, output), cached, creation);
    }

    /** A whole, non-negative count, or -1. */
    private static long count(Object value) {
        if (value instanceof Long || value instanceof Integer || value instanceof Short) {
            long count = ((Number) value).longValue();
            return count >= 0 ? count : -1;
        }
        return -1;
    }
}
