package dev.llmratelimit.interceptor;

import dev.llmratelimit.usage.JsonUsageParser;
import dev.llmratelimit.usage.Usage;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The usage a complete return value carries: a {@link Usage}; a JSON response body ({@code String} or
 * {@code byte[]}); a {@code Map} with a {@code "usage"} map ({@code prompt_tokens},
 * {@code completion_tokens}, {@code prompt_tokens_details.cached_tokens}); or an object with a
 * {@code usage()}/{@code getUsage()} accessor (an {@code Optional} is unwrapped) whose value is one of
 * these or exposes {@code promptTokens()}, {@code completionTokens()} and optionally
 * {@code promptTokensDetails().cachedTokens()} (bean-style getters too), as openai-java's
 * {@code ChatCompletion} does.
 */
final class ReturnedUsage {

    private static final Accessors USAGE = new Accessors("usage", "getUsage");
    private static final Accessors PROMPT = new Accessors("promptTokens", "getPromptTokens");
    private static final Accessors COMPLETION = new Accessors("completionTokens", "getCompletionTokens");
    private static final Accessors DETAILS = new Accessors("promptTokensDetails", "getPromptTokensDetails");
    private static final Accessors CACHED = new Accessors("cachedTokens", "getCachedTokens");

    private ReturnedUsage() {
    }

    /** The usage, or {@code null} when the value carries none. */
    static Usage of(Object value) {
        if (value instanceof Usage usage) {
            return usage;
        }
        if (value instanceof String json) {
            byte[] body = json.getBytes(StandardCharsets.UTF_8);
            return JsonUsageParser.parse(body, body.length).orElse(null);
        }
        if (value instanceof byte[] body) {
            return JsonUsageParser.parse(body, body.length).orElse(null);
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
        long completion = count(COMPLETION.read(usage));
        Object details = DETAILS.read(usage);
        return tokens(prompt, completion, details == null ? 0 : count(CACHED.read(details)));
    }

    private static Usage fromMap(Map<?, ?> usage) {
        Object details = usage.get("prompt_tokens_details");
        long cached = details instanceof Map<?, ?> map ? count(map.get("cached_tokens")) : 0;
        return tokens(count(usage.get("prompt_tokens")), count(usage.get("completion_tokens")), cached);
    }

    /** As the JSON parser: absent counts are 0, but a usage needs a prompt or a completion count. */
    private static Usage tokens(long prompt, long completion, long cached) {
        if (prompt < 0 && completion < 0) {
            return null;
        }
        long promptTokens = Math.max(0, prompt);
        return new Usage(promptTokens, Math.max(0, completion), Math.min(Math.max(0, cached), promptTokens));
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
