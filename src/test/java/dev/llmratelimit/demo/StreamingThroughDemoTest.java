package dev.llmratelimit.demo;

import dev.llmratelimit.testsupport.Http;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/** Usage recording through the demo: JSON and streams, read-your-writes (docs/usage-recording.md). */
class StreamingThroughDemoTest {

    private static final String JSON = "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
    private static final String STREAM = "{\"model\":\"gpt-4o\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
    private static final String STREAM_WITH_USAGE = "{\"model\":\"gpt-4o\",\"stream\":true,"
            + "\"stream_options\":{\"include_usage\":true},\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";

    private static long remainingTokens(HttpResponse<String> response) {
        return Long.parseLong(Http.header(response, "x-ratelimit-remaining-tokens"));
    }

    @Test
    void aStreamThatAskedForUsageShowsItAndIsCharged() throws Exception {
        try (DemoFixture demo = new DemoFixture()) {
            HttpResponse<String> stream = demo.http().chat("sk-alice", STREAM_WITH_USAGE);
            assertThat(stream.statusCode()).isEqualTo(200);
            assertThat(stream.body()).contains("\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":20,\"total_tokens\":30}");
            assertThat(stream.body()).endsWith("data: [DONE]\n\n");
            assertThat(remainingTokens(demo.http().chat("sk-alice", JSON))).isEqualTo(100_000 - 30);
        }
    }

    /** Chunk by chunk as OpenAI streams (ids and timestamps aside). */
    @Test
    void theMockStreamsAsOpenAiDoes() throws Exception {
        try (DemoFixture demo = new DemoFixture("demo.mock.stream-chunks=2")) {
            String body = demo.http().chat("sk-alice", STREAM_WITH_USAGE).body()
                    .replaceAll("\"id\":\"chatcmpl-demo-\\d+\",\"object\":\"chat.completion.chunk\",\"created\":\\d+,", "");
            String head = "data: {\"model\":\"gpt-4o\",";
            assertThat(body).isEqualTo(
                    head + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\",\"refusal\":null},"
                            + "\"logprobs\":null,\"finish_reason\":null}],\"usage\":null}\n\n"
                    + head + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"},\"logprobs\":null,"
                            + "\"finish_reason\":null}],\"usage\":null}\n\n"
                    + head + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\" from\"},\"logprobs\":null,"
                            + "\"finish_reason\":null}],\"usage\":null}\n\n"
                    + head + "\"choices\":[{\"index\":0,\"delta\":{},\"logprobs\":null,\"finish_reason\":\"stop\"}],"
                            + "\"usage\":null}\n\n"
                    + head + "\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":20,\"total_tokens\":30}}\n\n"
                    + "data: [DONE]\n\n");
        }
    }

    @Test
    void aStreamThatDidNotAskForUsageIsChargedButSeesNoUsageChunk() throws Exception {
        try (DemoFixture demo = new DemoFixture()) {
            HttpResponse<String> stream = demo.http().chat("sk-alice", STREAM);
            // The filter asked for usage, so each chunk carries OpenAI's "usage":null; the usage chunk itself is removed.
            assertThat(stream.body()).doesNotContain("\"usage\":{").doesNotContain("\"choices\":[]");
            assertThat(stream.body().split("\n\n")).hasSize(8);                    // role, 5 words, stop, [DONE]
            assertThat(stream.body()).contains("{\"content\":\"Hello\"}").endsWith("data: [DONE]\n\n");
            assertThat(remainingTokens(demo.http().chat("sk-alice", JSON))).isEqualTo(100_000 - 30);
        }
    }

    @Test
    void theNextRequestAlwaysSeesThePreviousResponsesTokens() throws Exception {
        try (DemoFixture demo = new DemoFixture()) {
            long expected = 100_000;
            for (int i = 0; i < 30; i++) {
                HttpResponse<String> response = demo.http().chat("sk-alice", i % 2 == 0 ? JSON : STREAM);
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(remainingTokens(response)).as("request %d", i).isEqualTo(expected);
                expected -= 30;
            }
        }
    }

    @Test
    void maxTokensSetsTheMockCompletionAndTheChargedTokens() throws Exception {
        try (DemoFixture demo = new DemoFixture()) {
            demo.http().chat("sk-alice", "{\"model\":\"gpt-4o\",\"max_tokens\":500,\"messages\":[]}");
            assertThat(remainingTokens(demo.http().chat("sk-alice", JSON))).isEqualTo(100_000 - 510);
        }
    }
}
