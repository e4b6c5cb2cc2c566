// The README's quick start in the OpenAI Java SDK (com.openai:openai-java), against the demo:
//
//   java -jar target/llm-ratelimit-demo.jar
//   java -cp <openai-java and its dependencies> docs/examples/QuickStart.java http://127.0.0.1:8080/v1
//
// Against your own application, pass its base URL and use a key it accepts. QuickStartExampleTest runs
// this file as it stands, so what it prints below is what you see.

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.HttpResponseFor;
import com.openai.core.http.StreamResponse;
import com.openai.errors.RateLimitException;
import com.openai.helpers.ChatCompletionAccumulator;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;

public class QuickStart {

    public static void main(String[] args) {
        String baseUrl = args.length > 0 ? args[0] : "http://127.0.0.1:8080/v1";
        OpenAIClient client = OpenAIOkHttpClient.builder()
                .baseUrl(baseUrl)
                .apiKey("sk-alice")                 // the demo's key for alice (priority prod)
                .maxRetries(0)                      // the SDK's default (2) would wait out retry-after, see docs/clients.md
                .build();

        // gpt-4o-mini: 60 tokens per 60 s window, every answer 30 tokens. Two calls, then a 429.
        ChatCompletionCreateParams hi = ChatCompletionCreateParams.builder()
                .model("gpt-4o-mini").addUserMessage("Hi").build();
        for (int call = 1; call <= 3; call++) {
            try {
                HttpResponseFor<ChatCompletion> response = client.chat().completions().withRawResponse().create(hi);
                ChatCompletion completion = response.parse();
                System.out.println("call " + call + ": " + completion.choices().get(0).message().content().orElse("")
                        + " (" + completion.usage().orElseThrow().totalTokens() + " tokens; x-ratelimit-remaining-tokens "
                        + response.headers().values("x-ratelimit-remaining-tokens").get(0) + ")");
            } catch (RateLimitException e) {
                System.out.println("call " + call + ": " + e.statusCode() + " " + e.type().orElse("")
                        + ", retry-after " + e.headers().values("retry-after").get(0) + " s");
            }
        }

        // A stream, collected by the SDK's accumulator; include_usage adds the usage chunk.
        ChatCompletionCreateParams streamed = ChatCompletionCreateParams.builder()
                .model("gpt-4o").addUserMessage("Hi")
                .streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build())
                .build();
        ChatCompletionAccumulator accumulator = ChatCompletionAccumulator.create();
        try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(streamed)) {
            stream.stream().forEach(accumulator::accumulate);
        }
        ChatCompletion completion = accumulator.chatCompletion();
        System.out.println("stream: " + completion.choices().get(0).message().content().orElse("")
                + " (" + completion.choices().get(0).finishReason() + ", "
                + completion.usage().orElseThrow().totalTokens() + " tokens)");
        client.close();
    }
}
