package dev.llmratelimit.usage;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How usage is read where it is doubtful: keys given twice (the last wins, as clients read them), usage
 * that is present but unusable (told apart from none), and the prompt a stream reported before it was cut.
 */
class UsageReadingTest {

    private static final TokenCounter COUNTER = TokenCounter.forModel("gpt-4o");

    private static JsonUsageScanner scanned(EndpointShape shape, String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        JsonUsageScanner scanner = new JsonUsageScanner(shape);
        for (int i = 0; i < bytes.length; i += 5) {
            scanner.feed(bytes, i, Math.min(5, bytes.length - i));
        }
        return scanner;
    }

    private static Usage parsed(String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        return JsonUsageParser.parse(bytes, bytes.length).orElse(null);
    }

    @Test
    void aFigureGivenTwiceIsTheLastOneInEveryReader() {
        String[][] cases = {
            {"{\"usage\":{\"prompt_tokens\":-1,\"completion_tokens\":2,\"prompt_tokens\":50}}", "50"},
            {"{\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":2,\"prompt_tokens\":null}}", "0"},
            {"{\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2,\"prompt_tokens\":70}}", "70"},
        };
        for (String[] c : cases) {
            long prompt = Long.parseLong(c[1]);
            assertThat(parsed(c[0])).as(c[0]).isEqualTo(new Usage(prompt, 2, 0));
            assertThat(scanned(EndpointShape.CHAT, c[0]).usage()).as(c[0]).isEqualTo(new Usage(prompt, 2, 0));
        }
        String details = "{\"usage\":{\"prompt_tokens\":90,\"completion_tokens\":2,\"prompt_tokens_details\":"
                + "{\"cached_tokens\":80},\"prompt_tokens_details\":{}}}";
        assertThat(parsed(details)).isEqualTo(new Usage(90, 2, 0));
        assertThat(scanned(EndpointShape.CHAT, details).usage()).isEqualTo(new Usage(90, 2, 0));
    }

    @Test
    void theLastTopLevelUsageWinsInTheStreamingReaderToo() {
        String twice = "{\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1},\"choices\":[],"
                + "\"usage\":{\"prompt_tokens\":900,\"completion_tokens\":300}}";
        assertThat(scanned(EndpointShape.CHAT, twice).usage()).isEqualTo(new Usage(900, 300, 0));
        assertThat(parsed(twice)).isEqualTo(new Usage(900, 300, 0));
    }

    @Test
    void theStreamingReaderReportsTheUsageWhenTheBodyEndsBeforeItsLastBytesGoOn() {
        byte[] body = "{\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4},\"id\":\"x\"}".getBytes(StandardCharsets.UTF_8);
        JsonUsageScanner scanner = new JsonUsageScanner(EndpointShape.CHAT);
        assertThat(scanner.feed(body, 0, body.length - 1)).isFalse();
        assertThat(scanner.usage()).isEqualTo(new Usage(3, 4, 0));          // known so far, for a body cut here
        assertThat(scanner.feed(body, body.length - 1, 1)).isTrue();
    }

    /** Inside a body that is an array, no name is a top-level key: an element after one named usage is no usage. */
    @Test
    void aNameInsideAnArrayBodyIsNoTopLevelKey() {
        JsonUsageScanner scanner = scanned(EndpointShape.CHAT, "[{\"usage\":0},{\"prompt_tokens\":5,\"completion_tokens\":7}]");
        assertThat(scanner.usage()).isNull();
        assertThat(scanner.isUnusable()).isFalse();
    }

    @Test
    void unusableUsageIsToldApartFromNone() {
        String[] unusable = {
            "{\"usage\":{\"prompt_tokens\":-5,\"completion_tokens\":10}}",
            "{\"usage\":{\"prompt_tokens\":5.5,\"completion_tokens\":10}}",
            "{\"usage\":{\"prompt_tokens\":\"5\",\"completion_tokens\":10}}",
            "{\"usage\":{\"prompt_tokens\":[5],\"completion_tokens\":10}}",
            "{\"usage\":{\"prompt_tokens\":null,\"completion_tokens\":null}}",
            "{\"usage\":{}}",
            "{\"usage\":\"lots\"}",
            "{\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":1,\"prompt_tokens_details\":7}}",
        };
        for (String body : unusable) {
            JsonUsageScanner scanner = scanned(EndpointShape.CHAT, body);
            assertThat(scanner.usage()).as(body).isNull();
            assertThat(scanner.isUnusable()).as(body).isTrue();
            assertThat(parsed(body)).as(body).isNull();
        }
        for (String body : new String[] {"{\"id\":\"x\"}", "{\"usage\":null}", "{\"usage\":{\"prompt_tokens\":1},\"usage\":null}"}) {
            JsonUsageScanner scanner = scanned(EndpointShape.CHAT, body);
            assertThat(scanner.usage()).as(body).isNull();
            assertThat(scanner.isUnusable()).as(body).isFalse();
        }
        JsonBodyObserver observer = new JsonBodyObserver(EndpointShape.CHAT, usage -> { });
        byte[] bytes = unusable[0].getBytes(StandardCharsets.UTF_8);
        try {
            observer.write(bytes, 0, bytes.length, new ByteArrayOutputStream());
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        assertThat(observer.hasUnusableUsage()).isTrue();
    }

    @Test
    void anthropicCacheWritesAreSplitByTheirCacheLifetime() {
        String body = "{\"type\":\"message\",\"usage\":{\"input_tokens\":10,\"cache_creation_input_tokens\":500,"
                + "\"cache_read_input_tokens\":0,\"cache_creation\":{\"ephemeral_5m_input_tokens\":200,"
                + "\"ephemeral_1h_input_tokens\":300},\"output_tokens\":7}}";
        Usage expected = new Usage(510, 7, 0, 500, 300, true);
        assertThat(scanned(EndpointShape.MESSAGES, body).usage()).isEqualTo(expected);
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        assertThat(JsonUsageParser.parse(bytes, bytes.length, EndpointShape.MESSAGES)).contains(expected);
        assertThat(JsonUsageParser.parse(bytes, bytes.length, EndpointShape.CHAT)).isEmpty();
    }

    private static SseUsageTracker stream(EndpointShape shape, String events) throws IOException {
        SseUsageTracker tracker = new SseUsageTracker(shape, SseUsageTracker.Mode.PASS_THROUGH, COUNTER, () -> { });
        byte[] bytes = events.getBytes(StandardCharsets.UTF_8);
        tracker.write(bytes, 0, bytes.length, new ByteArrayOutputStream());
        return tracker;
    }

    @Test
    void aMessagesStreamCutAfterMessageStartReportsItsInputFigures() throws IOException {
        SseUsageTracker tracker = stream(EndpointShape.MESSAGES, EndpointShapeUsageTest.MESSAGES_STREAM);
        assertThat(tracker.usage()).isEmpty();
        assertThat(tracker.reportedPromptTokens()).isEqualTo(OptionalLong.of(25 + 100 + 400));
        assertThat(stream(EndpointShape.MESSAGES, "event: ping\ndata: {\"type\":\"ping\"}\n\n").reportedPromptTokens())
                .isEmpty();
    }

    @Test
    void aResponsesStreamReportsTheUsageOfResponseCreatedWhereItHasOne() throws IOException {
        SseUsageTracker tracker = stream(EndpointShape.RESPONSES, """
                event: response.created
                data: {"type":"response.created","response":{"id":"r","usage":{"input_tokens":20000,"output_tokens":0}}}

                event: response.output_text.delta
                data: {"type":"response.output_text.delta","delta":"Hello"}

                """);
        assertThat(tracker.usage()).isEmpty();
        assertThat(tracker.reportedPromptTokens()).isEqualTo(OptionalLong.of(20_000));
        assertThat(stream(EndpointShape.RESPONSES, """
                data: {"type":"response.created","response":{"id":"r","usage":null}}

                """).reportedPromptTokens()).isEmpty();
    }
}
