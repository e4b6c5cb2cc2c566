package dev.llmratelimit.http;

import dev.llmratelimit.policy.PolicyException;

import java.util.Locale;

/**
 * {@code llm.ratelimit.error-style}: the shape of a 429 body. The message is the same in both; the
 * type and code are those of the gateway the clients were written for.
 */
public enum ErrorStyle {
    /** LiteLLM's proxy: {@code "type":"throttling_error","code":"429"} (the default). */
    LITELLM,
    /**
     * OpenAI's API: {@code "type":"requests"} or {@code "tokens"}, {@code "code":"rate_limit_exceeded"},
     * the message ending in {@code Please try again in 6m0s.}
     */
    OPENAI;

    public static final String PROPERTY = "error-style";

    public static ErrorStyle parse(String property, String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "litellm" -> LITELLM;
            case "openai" -> OPENAI;
            default -> throw new PolicyException(property, text, "expected one of litellm, openai");
        };
    }
}
