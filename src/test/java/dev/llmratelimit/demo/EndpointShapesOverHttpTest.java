package dev.llmratelimit.demo;

import dev.llmratelimit.testsupport.Http;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every shape through the filter in front of the demo's mocks (10 prompt + 20 completion tokens an
 * answer): exact charges for JSON and streams, what the client sees, and the refusal bodies.
 */
class EndpointShapesOverHttpTest {

    private static final String MODEL = "llm.ratelimit.models.shape-model.";
    private static final String CHAT = "{\"model\":\"shape-model\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";

    /** The tokens the model has left, seen by a chat request (which then costs 30 more). */
    private static long remaining(DemoFixture demo) {
        HttpResponse<String> probe = demo.http().chat("sk-alice", CHAT);
        assertThat(probe.statusCode()).isEqualTo(200);
        return Long.parseLong(Http.header(probe, "x-ratelimit-remaining-tokens"));
    }

    private static DemoFixture demo(String... more) throws Exception {
        List<String> lines = new ArrayList<>(List.of(MODEL + "tpm=100000", MODEL + "saturation-threshold=1.0"));
        lines.addAll(List.of(more));
        return new DemoFixture(lines.toArray(String[]::new));
    }

    @Test
    void eachShapeIsChargedExactlyItsUsageAsJsonAndAsAStream() throws Exception {
        try (DemoFixture demo = demo()) {
            String[][] requests = {
                {"/v1/completions", "{\"model\":\"shape-model\",\"prompt\":\"Hi\"}", "30"},
                {"/v1/completions", "{\"model\":\"shape-model\",\"prompt\":\"Hi\",\"stream\":true}", "30"},
                {"/v1/embeddings", "{\"model\":\"shape-model\",\"input\":[\"a\",\"b\"]}", "10"},
                {"/v1/responses", "{\"model\":\"shape-model\",\"input\":\"Hi\"}", "30"},
                {"/v1/responses", "{\"model\":\"shape-model\",\"input\":\"Hi\",\"stream\":true}", "30"},
                {"/v1/responses", "{\"model\":\"shape-model\",\"input\":\"Hi\",\"max_output_tokens\":7}", "17"},
                {"/v1/messages", "{\"model\":\"shape-model\",\"max_tokens\":1024,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}", "30"},
                {"/v1/messages", "{\"model\":\"shape-model\",\"max_tokens\":5,\"stream\":true,\"messages\":[]}", "15"},
                {"/completions", "{\"model\":\"shape-model\",\"prompt\":\"Hi\"}", "30"},
                {"/messages", "{\"model\":\"shape-model\",\"max_tokens\":1024,\"messages\":[]}", "30"},
            };
            long expected = 100_000;
            assertThat(remaining(demo)).isEqualTo(expected);
            expected -= 30;
            for (String[] request : requests) {
                HttpResponse<String> response = demo.http().post(request[0], "sk-alice", request[1]);
                assertThat(response.statusCode()).as(request[1]).isEqualTo(200);
                assertThat(Http.header(response, "x-ratelimit-remaining-tokens")).as(request[1]).isNotNull();
                expected -= Long.parseLong(request[2]);
                assertThat(remaining(demo)).as(request[0] + " " + request[1]).isEqualTo(expected);
                expected -= 30;
            }
        }
    }

    @Test
    void onlyChatAndLegacyCompletionsGetIncludeUsageAndHaveItsChunkHidden() throws Exception {
        try (DemoFixture demo = demo()) {
            HttpResponse<String> completions = demo.http().post("/v1/completions", "sk-alice",
                    "{\"model\":\"shape-model\",\"prompt\":\"Hi\",\"stream\":true}");
            assertThat(completions.body()).doesNotContain("\"usage\":{").doesNotContain("\"choices\":[]")
                    .contains("\"finish_reason\":\"stop\"").endsWith("data: [DONE]\n\n");
            HttpResponse<String> asked = demo.http().post("/v1/completions", "sk-alice",
                    "{\"model\":\"shape-model\",\"prompt\":\"Hi\",\"stream\":true,\"stream_options\":{\"include_usage\":true}}");
            assertThat(asked.body()).contains("\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":20,\"total_tokens\":30}}");

            HttpResponse<String> responses = demo.http().post("/v1/responses", "sk-alice",
                    "{\"model\":\"shape-model\",\"input\":\"Hi\",\"stream\":true}");
            assertThat(responses.body()).startsWith("event: response.created\n").doesNotContain("[DONE]")
                    .contains("event: response.completed\ndata: {\"type\":\"response.completed\"")
                    .contains("\"usage\":{\"input_tokens\":10,\"input_tokens_details\":{\"cached_tokens\":0},\"output_tokens\":20");
            HttpResponse<String> messages = demo.http().post("/v1/messages", "sk-alice",
                    "{\"model\":\"shape-model\",\"max_tokens\":100,\"stream\":true,\"messages\":[]}");
            assertThat(messages.body()).startsWith("event: message_start\n")
                    .contains("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\","
                            + "\"stop_sequence\":null},\"usage\":{\"output_tokens\":20}}\n\n")
                    .endsWith("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
        }
    }

    @Test
    void messagesRefusalsHaveAnthropicsShapeAndOpenAiShapesKeepTheirs() throws Exception {
        try (DemoFixture demo = demo(MODEL + "rpm=1")) {
            String message = "{\"model\":\"shape-model\",\"max_tokens\":10,\"messages\":[]}";
            assertThat(demo.http().post("/v1/messages", "sk-alice", message).statusCode()).isEqualTo(200);

            HttpResponse<String> refused = demo.http().post("/v1/messages", "sk-alice", message);
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.body()).isEqualTo("{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":"
                    + "\"Model capacity reached for shape-model. Priority: prod, Rate limit type: requests, "
                    + "Model TPM: 100000, Model RPM: 1, Remaining: 0\"}}");
            assertThat(Long.parseLong(Http.header(refused, "retry-after"))).isBetween(1L, 60L);
            assertThat(Http.header(refused, "content-type")).startsWith("application/json");

            HttpResponse<String> openAi = demo.http().post("/v1/responses", "sk-alice", "{\"model\":\"shape-model\",\"input\":\"x\"}");
            assertThat(openAi.statusCode()).isEqualTo(429);
            assertThat(openAi.body()).startsWith("{\"error\":{\"message\":\"Model capacity reached for shape-model.")
                    .endsWith("\"type\":\"throttling_error\",\"param\":null,\"code\":\"429\"}}");
        }
    }

    @Test
    void badBodiesOnMessagesGetAnthropicsInvalidRequestError() throws Exception {
        try (DemoFixture demo = demo()) {
            HttpResponse<String> noMaxTokens = demo.http().post("/v1/messages", "sk-alice",
                    "{\"model\":\"shape-model\",\"messages\":[]}");
            assertThat(noMaxTokens.statusCode()).isEqualTo(400);
            assertThat(noMaxTokens.body()).isEqualTo("{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
                    + "\"message\":\"The 'max_tokens' field is required: a whole number of tokens.\"}}");
            HttpResponse<String> badN = demo.http().post("/v1/completions", "sk-alice",
                    "{\"model\":\"shape-model\",\"prompt\":\"x\",\"n\":\"2\"}");
            assertThat(badN.statusCode()).isEqualTo(400);
            assertThat(badN.body()).contains("\"type\":\"invalid_request_error\"").contains("'n'");
        }
    }

    /** Many threads over all five shapes on one model never get more than its RPM admitted. */
    @Test
    void aMixedLoadOverEveryShapeNeverAdmitsPastTheModelsRpm() throws Exception {
        int rpm = 37;
        try (DemoFixture demo = demo(MODEL + "rpm=" + rpm)) {
            String[][] shapes = {
                {"/v1/chat/completions", CHAT},
                {"/v1/completions", "{\"model\":\"shape-model\",\"prompt\":\"Hi\",\"stream\":true}"},
                {"/v1/embeddings", "{\"model\":\"shape-model\",\"input\":\"Hi\"}"},
                {"/v1/responses", "{\"model\":\"shape-model\",\"input\":\"Hi\",\"stream\":true}"},
                {"/v1/messages", "{\"model\":\"shape-model\",\"max_tokens\":50,\"messages\":[]}"},
            };
            AtomicInteger admitted = new AtomicInteger();
            AtomicInteger refused = new AtomicInteger();
            String[] keys = {"sk-alice", "sk-bob", "sk-carol"};
            ExecutorService pool = Executors.newFixedThreadPool(12);
            List<Future<?>> work = new ArrayList<>();
            for (int i = 0; i < 120; i++) {
                String[] shape = shapes[i % shapes.length];
                String key = keys[i % keys.length];
                work.add(pool.submit(() -> {
                    int status = demo.http().post(shape[0], key, shape[1]).statusCode();
                    (status == 200 ? admitted : refused).incrementAndGet();
                    assertThat(status).isIn(200, 429);
                }));
            }
            for (Future<?> future : work) {
                future.get();
            }
            pool.shutdown();
            assertThat(admitted.get()).isEqualTo(rpm);
            assertThat(refused.get()).isEqualTo(120 - rpm);
        }
    }
}
