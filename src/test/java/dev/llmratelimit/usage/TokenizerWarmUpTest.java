package dev.llmratelimit.usage;

import dev.llmratelimit.config.RateLimitRuntime;
import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.concurrent.TimeUnit;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/** Start-up loads the tokenizers the configured models use, off the request path (each test class runs in its own JVM). */
class TokenizerWarmUpTest {

    @Test
    void theRuntimeWarmsTheTokenizersOfItsModelsAtStartUp() throws Exception {
        try (RateLimitRuntime onlyGpt4o = RateLimitRuntime.create(properties("models.gpt-4o-mini.tpm=1000"), null);
             RateLimitRuntime both = RateLimitRuntime.create(properties("models.gpt-4o.rpm=10", "models.llama-3.tpm=10"), null);
             RateLimitRuntime none = RateLimitRuntime.create(properties(), null)) {
            assertThat(onlyGpt4o.tokenizersWarmedUp().get(60, TimeUnit.SECONDS)).isEqualTo(Set.of("o200k_base"));
            assertThat(both.tokenizersWarmedUp().get(60, TimeUnit.SECONDS)).isEqualTo(Set.of("cl100k_base", "o200k_base"));
            assertThat(none.tokenizersWarmedUp().get(60, TimeUnit.SECONDS)).isEmpty();
        }
    }
}
