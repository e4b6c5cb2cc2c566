package dev.llmratelimit.demo;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.RateLimitException;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** The official OpenAI Java SDK against the demo: a normal completion, then its rate-limit error. */
class OpenAiClientTest {

    @Test
    void theSdkGetsCompletionsAndThenItsRateLimitException() throws Exception {
        try (DemoFixture demo = new DemoFixture()) {
            OpenAIClient client = OpenAIOkHttpClient.builder()
                    .apiKey("sk-alice")
                    .baseUrl("http://127.0.0.1:" + demo.port() + "/v1")
                    .maxRetries(0)
                    .build();
            ChatCompletionCreateParams params = ChatCompletionCreateParams.builder()
                    .model("gpt-4o-mini").addUserMessage("Hi").build();

            ChatCompletion first = client.chat().completions().create(params);
            assertThat(first.choices().get(0).message().content()).hasValue("Hello from the demo model.");
            assertThat(first.usage().orElseThrow().totalTokens()).isEqualTo(30);
            client.chat().completions().create(params);

            RateLimitException refused = catchThrowableOfType(RateLimitException.class,
                    () -> client.chat().completions().create(params));
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.getMessage()).contains("Model capacity reached for gpt-4o-mini. Priority: prod, "
                    + "Rate limit type: tokens, Model TPM: 60, Model RPM: 10, Remaining: 0");
            assertThat(refused.headers().values("retry-after")).hasSize(1);
            client.close();
        }
    }
}
