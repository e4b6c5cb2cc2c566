package dev.llmratelimit.usage;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Usage of every endpoint shape (docs/endpoints.md): JSON bodies and event streams, fed in pieces. */
class EndpointShapeUsageTest {

    private static final TokenCounter COUNTER = TokenCounter.forModel("gpt-4o");

    private static Usage scan(EndpointShape shape, String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        JsonUsageScanner scanner = new JsonUsageScanner(shape);
        for (int i = 0; i < bytes.length; i += 7) {                      // in pieces, as a response is written
            scanner.feed(bytes, i, Math.min(7, bytes.length - i));
        }
        assertThat(JsonUsageParser.parse(bytes, bytes.length, shape).orElse(null)).isEqualTo(scanner.usage());
        return scanner.usage();
    }

    @Test
    void legacyCompletionsAndEmbeddingsUseOpenAiFigures() {
        assertThat(scan(EndpointShape.COMPLETIONS, "{\"object\":\"text_completion\",\"choices\":[{\"text\":\"Hi\"}],"
                + "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":7,\"total_tokens\":12}}")).isEqualTo(new Usage(5, 7, 0));
        assertThat(scan(EndpointShape.EMBEDDINGS, "{\"object\":\"list\",\"data\":[{\"embedding\":[0.1,0.2]}],"
                + "\"usage\":{\"prompt_tokens\":8,\"total_tokens\":8}}")).isEqualTo(new Usage(8, 0, 0));
    }

    @Test
    void responsesUseInputAndOutputTokensWithCachedInputDetails() {
        Usage usage = scan(EndpointShape.RESPONSES, "{\"object\":\"response\",\"output\":[{\"usage\":{\"input_tokens\":999}}],"
                + "\"usage\":{\"input_tokens\":100,\"input_tokens_details\":{\"cached_tokens\":40},\"output_tokens\":25,"
                + "\"output_tokens_details\":{\"reasoning_tokens\":10},\"total_tokens\":125}}");
        assertThat(usage).isEqualTo(new Usage(100, 25, 40));
        assertThat(usage.tokens(dev.llmratelimit.policy.RateLimitType.TOTAL)).isEqualTo(100 + 25);   // OpenAI counts cached
        // chat's names are not the Responses API's
        assertThat(scan(EndpointShape.RESPONSES, "{\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":7}}")).isNull();
    }

    @Test
    void anthropicCacheReadsAndWritesArePartOfThePromptAndOnlyReadsAreCached() {
        Usage usage = scan(EndpointShape.MESSAGES, "{\"type\":\"message\",\"content\":[{\"type\":\"text\",\"text\":\"x\"}],"
                + "\"usage\":{\"input_tokens\":50,\"cache_creation_input_tokens\":200,\"cache_read_input_tokens\":1000,"
                + "\"output_tokens\":30}}");
        assertThat(usage).isEqualTo(new Usage(1250, 30, 1000, 200, 0, true));
        assertThat(usage.tokens(dev.llmratelimit.policy.RateLimitType.TOTAL)).isEqualTo(50 + 200 + 30);
        assertThat(usage.tokens(dev.llmratelimit.policy.RateLimitType.INPUT)).isEqualTo(250);
        assertThat(scan(EndpointShape.MESSAGES, "{\"usage\":{\"input_tokens\":50,\"cache_read_input_tokens\":\"7\","
                + "\"output_tokens\":30}}")).isNull();
    }

    @Test
    void theInterceptorTellsTheShapeOfAReturnedBody() {
        byte[] anthropic = "{\"usage\":{\"input_tokens\":5,\"cache_read_input_tokens\":10,\"output_tokens\":2},\"type\":\"message\"}"
                .getBytes(StandardCharsets.UTF_8);
        byte[] responses = "{\"object\":\"response\",\"usage\":{\"input_tokens\":15,\"input_tokens_details\":{\"cached_tokens\":10},\"output_tokens\":2}}"
                .getBytes(StandardCharsets.UTF_8);
        assertThat(JsonUsageParser.parseAnyShape(anthropic, anthropic.length)).contains(new Usage(15, 2, 10, 0, 0, true));
        assertThat(JsonUsageParser.parseAnyShape(responses, responses.length)).contains(new Usage(15, 2, 10, 0));
    }

    /** Feeds a stream in pieces of {@code piece} bytes; records what the client had when usage was reported. */
    private static final class Stream {
        final ByteArrayOutputStream client = new ByteArrayOutputStream();
        final List<String> clientHadAtDone = new ArrayList<>();
        final SseUsageTracker tracker;

        Stream(EndpointShape shape, SseUsageTracker.Mode mode) {
            tracker = new SseUsageTracker(shape, mode, COUNTER, () -> clientHadAtDone.add(client.toString(StandardCharsets.UTF_8)));
        }

        Stream feed(String text, int piece) throws IOException {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i < bytes.length; i += piece) {
                tracker.write(bytes, i, Math.min(piece, bytes.length - i), client);
            }
            return this;
        }
    }

    static final String RESPONSES_STREAM = """
            event: response.created
            data: {"type":"response.created","sequence_number":0,"response":{"id":"r","status":"in_progress","usage":null}}

            event: response.output_text.delta
            data: {"type":"response.output_text.delta","sequence_number":1,"delta":"Hello there"}

            event: response.function_call_arguments.delta
            data: {"sequence_number":2,"delta":"{\\"city\\":\\"Paris\\"}","type":"response.function_call_arguments.delta"}

            event: response.output_text.done
            data: {"type":"response.output_text.done","sequence_number":3,"text":"Hello there"}

            """;
    static final String RESPONSES_END = """
            event: response.completed
            data: {"type":"response.completed","sequence_number":4,"response":{"id":"r","status":"completed","usage":{"input_tokens":12,"input_tokens_details":{"cached_tokens":2},"output_tokens":9,"total_tokens":21}}}

            """;

    @Test
    void aResponsesStreamIsChargedAtResponseCompletedBeforeTheClientHasIt() throws IOException {
        for (int piece : new int[] {1, 5, 4096}) {
            Stream stream = new Stream(EndpointShape.RESPONSES, SseUsageTracker.Mode.PASS_THROUGH)
                    .feed(RESPONSES_STREAM + RESPONSES_END, piece);
            assertThat(stream.tracker.usage()).contains(new Usage(12, 9, 2));
            assertThat(stream.clientHadAtDone).hasSize(1);
            assertThat(RESPONSES_STREAM + RESPONSES_END).startsWith(stream.clientHadAtDone.get(0))
                    .isNotEqualTo(stream.clientHadAtDone.get(0));          // recorded before the last byte went out
            assertThat(stream.client.toString(StandardCharsets.UTF_8)).isEqualTo(RESPONSES_STREAM + RESPONSES_END);
        }
    }

    @Test
    void aCutResponsesStreamCountsTheDeltasStreamedSoFar() throws IOException {
        Stream stream = new Stream(EndpointShape.RESPONSES, SseUsageTracker.Mode.PASS_THROUGH).feed(RESPONSES_STREAM, 3);
        assertThat(stream.tracker.usage()).isEmpty();
        // the text deltas, not output_text.done's repetition of them
        assertThat(stream.tracker.streamedCompletionTokens()).isEqualTo(COUNTER.count("Hello there" + "{\"city\":\"Paris\"}"));
    }

    static final String MESSAGES_STREAM = """
            event: message_start
            data: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"usage":{"input_tokens":25,"cache_creation_input_tokens":100,"cache_read_input_tokens":400,"output_tokens":1}}}

            event: content_block_start
            data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

            event: ping
            data: {"type": "ping"}

            event: content_block_delta
            data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello there"}}

            event: content_block_delta
            data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"city\\": "}}

            event: content_block_stop
            data: {"type":"content_block_stop","index":0}

            """;
    static final String MESSAGES_END = """
            event: message_delta
            data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}

            event: message_stop
            data: {"type":"message_stop"}

            """;

    @Test
    void aMessagesStreamCombinesMessageStartAndMessageDeltaAndIsChargedAtMessageStop() throws IOException {
        for (int piece : new int[] {1, 9, 4096}) {
            Stream stream = new Stream(EndpointShape.MESSAGES, SseUsageTracker.Mode.PASS_THROUGH)
                    .feed(MESSAGES_STREAM + MESSAGES_END, piece);
            assertThat(stream.tracker.usage()).contains(new Usage(525, 15, 400, 100, 0, true));
            assertThat(stream.clientHadAtDone).hasSize(1);
            assertThat(MESSAGES_STREAM + MESSAGES_END).startsWith(stream.clientHadAtDone.get(0))
                    .isNotEqualTo(stream.clientHadAtDone.get(0));
        }
    }

    @Test
    void aMessagesStreamCutBeforeMessageDeltaHasNoUsageButItsStreamedText() throws IOException {
        Stream stream = new Stream(EndpointShape.MESSAGES, SseUsageTracker.Mode.PASS_THROUGH).feed(MESSAGES_STREAM, 11);
        assertThat(stream.tracker.usage()).isEmpty();          // message_start's output_tokens (1) is no usage
        assertThat(stream.tracker.streamedCompletionTokens()).isEqualTo(COUNTER.count("Hello there" + "{\"city\": "));
    }

    @Test
    void aLegacyCompletionsStreamCountsChoiceTextAndStripsTheUsageChunkItAskedFor() throws IOException {
        String text = "data: {\"object\":\"text_completion\",\"choices\":[{\"text\":\"Hello\",\"index\":0,\"finish_reason\":null}],\"usage\":null}\n\n"
                + "data: {\"object\":\"text_completion\",\"choices\":[{\"text\":\" world\",\"index\":0,\"finish_reason\":\"stop\"}],\"usage\":null}\n\n";
        String usage = "data: {\"object\":\"text_completion\",\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":2,\"total_tokens\":6}}\n\n";
        Stream stream = new Stream(EndpointShape.COMPLETIONS, SseUsageTracker.Mode.STRIP_USAGE_EVENT)
                .feed(text + usage + "data: [DONE]\n\n", 6);
        stream.tracker.finish(stream.client);
        assertThat(stream.tracker.usage()).contains(new Usage(4, 2, 0));
        assertThat(stream.client.toString(StandardCharsets.UTF_8)).isEqualTo(text + "data: [DONE]\n\n");
        Stream cut = new Stream(EndpointShape.COMPLETIONS, SseUsageTracker.Mode.STRIP_USAGE_EVENT).feed(text, 6);
        assertThat(cut.tracker.usage()).isEmpty();
        assertThat(cut.tracker.streamedCompletionTokens()).isEqualTo(COUNTER.count("Hello world"));
    }

    @Test
    void promptsOfEveryShapeAreCountedFromTheirOwnFields() {
        assertThat(prompt(EndpointShape.COMPLETIONS, "{\"model\":\"m\",\"prompt\":\"Say hello to the world\"}"))
                .isEqualTo(COUNTER.count("Say hello to the world"));
        assertThat(prompt(EndpointShape.COMPLETIONS, "{\"model\":\"m\",\"prompt\":[1,2,3,4]}")).isEqualTo(4);
        assertThat(prompt(EndpointShape.EMBEDDINGS, "{\"model\":\"m\",\"input\":[\"one text\",\"another text\"]}"))
                .isEqualTo(COUNTER.count("one text") + COUNTER.count("another text"));
        assertThat(prompt(EndpointShape.RESPONSES, "{\"model\":\"m\",\"instructions\":\"Be brief\",\"input\":[{\"role\":\"user\","
                + "\"content\":[{\"type\":\"input_text\",\"text\":\"What is up\"},{\"type\":\"input_image\",\"image_url\":\"data:AAAA\"}]}]}"))
                .isEqualTo(COUNTER.count("Be brief") + 3 + COUNTER.count("user") + COUNTER.count("What is up")
                        + COUNTER.count("data:AAAA"));
        assertThat(prompt(EndpointShape.MESSAGES, "{\"model\":\"m\",\"max_tokens\":10,\"system\":\"Be brief\",\"messages\":["
                + "{\"role\":\"user\",\"content\":\"Hi there\"},{\"role\":\"user\",\"content\":[{\"type\":\"image\","
                + "\"source\":{\"type\":\"base64\",\"data\":\"QUFBQUFBQUFB\"}}]}]}"))
                .isEqualTo(COUNTER.count("Be brief") + 3 + COUNTER.count("user") + COUNTER.count("Hi there")
                        + 3 + COUNTER.count("user") + COUNTER.count("QUFBQUFBQUFB"));
    }

    private static long prompt(EndpointShape shape, String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        return RequestPromptTokens.count(COUNTER, shape, bytes, bytes.length);
    }
}
