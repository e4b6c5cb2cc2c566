package dev.llmratelimit.samples.springboot;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.RateLimitException;
import com.openai.models.ChatModel;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** The official OpenAI Java SDK against the application: two completions, then its RateLimitException. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class OpenAiSdkTest {

    @Autowired
    Environment environment;

    @Test
    void theSdkSeesTwoCompletionsThenA429() {
        Calls calls = Calls.to(environment);
        OpenAIClient client = OpenAIOkHttpClient.builder().baseUrl(calls.base() + "/v1").apiKey("unused")
                .maxRetries(0).build();
        // the application's HTTP Basic instead of the SDK's bearer key: a request's own header wins
        ChatCompletionCreateParams params = ChatCompletionCreateParams.builder()
                .model(ChatModel.GPT_4O_MINI).addUserMessage("Hi")
                .putAdditionalHeader("Authorization", Calls.basic("alice")).build();

        ChatCompletion first = client.chat().completions().create(params);
        ChatCompletion second = client.chat().completions().create(params);
        RateLimitException third = catchThrowableOfType(RateLimitException.class,
                () -> client.chat().completions().create(params));

        assertThat(first.usage().orElseThrow().totalTokens()).isEqualTo(30);
        assertThat(second.choices().get(0).message().content()).hasValue("Hello!");
        assertThat(third.statusCode()).isEqualTo(429);
        assertThat(third.headers().values("x-ratelimit-priority")).containsExactly("prod");
        assertThat(third.getMessage()).contains("Model capacity reached for gpt-4o-mini");
    }
}
