package dev.llmratelimit.http;

import dev.llmratelimit.usage.EndpointShape;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A refusal on {@code /v1/messages} carries each limit's figures under Anthropic's names too. */
class AnthropicHeaderNamesTest {

    @Test
    void eachLimitedDimensionGetsAnthropicsLimitRemainingAndReset() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("retry-after", "30");
        headers.put("x-ratelimit-limit-output-tokens", "8000");
        headers.put("x-ratelimit-remaining-output-tokens", "0");
        headers.put("x-ratelimit-reset-output-tokens", "29.5s");
        Instant before = Instant.now().plusSeconds(29);
        ErrorResponse refusal = new ErrorResponse(429, headers, "tokens", "rate_limit_exceeded", "no").forShape(EndpointShape.MESSAGES);

        assertThat(refusal.headers()).containsEntry("anthropic-ratelimit-output-tokens-limit", "8000")
                .containsEntry("anthropic-ratelimit-output-tokens-remaining", "0")
                .containsEntry("x-ratelimit-limit-output-tokens", "8000")
                .doesNotContainKey("anthropic-ratelimit-input-tokens-limit")
                .doesNotContainKey("anthropic-ratelimit-requests-limit");
        Instant reset = Instant.parse(refusal.headers().get("anthropic-ratelimit-output-tokens-reset"));
        assertThat(reset).isBetween(before.minusSeconds(1), Instant.now().plusSeconds(31));
        assertThat(refusal.anthropic()).isTrue();

        ErrorResponse chat = new ErrorResponse(429, headers, "tokens", "rate_limit_exceeded", "no").forShape(EndpointShape.CHAT);
        assertThat(chat.headers()).isEqualTo(headers);
    }
}
