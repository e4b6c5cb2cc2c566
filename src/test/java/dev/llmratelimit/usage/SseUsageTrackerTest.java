package dev.llmratelimit.usage;

import dev.llmratelimit.usage.SseUsageTracker.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class SseUsageTrackerTest {

    private static final TokenCounter COUNTER = TokenCounter.forModel("gpt-4o");

    private static final String ROLE = chunk("{\"role\":\"assistant\",\"content\":\"\"}", "null");
    private static final String CONTENT_1 = chunk("{\"content\":\"Grüße, \"}", "null");
    private static final String CONTENT_2 = chunk("{\"content\":\"world 🌍!\"}", "null");
    private static final String STOP = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
            + "\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":null}\n\n";
    private static final String USAGE = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[],"
            + "\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":5,\"total_tokens\":17,"
            + "\"prompt_tokens_details\":{\"cached_tokens\":4}}}\n\n";
    private static final String DONE = "data: [DONE]\n\n";
    private static final List<String> EVENTS = List.of(ROLE, CONTENT_1, CONTENT_2, STOP, USAGE, DONE);
    private static final String STREAM = String.join("", EVENTS);
    private static final String STREAM_WITHOUT_USAGE = ROLE + CONTENT_1 + CONTENT_2 + STOP + DONE;
    private static final String COMPLETION = "Grüße, world 🌍!";
    private static final Usage EXPECTED_USAGE = new Usage(12, 5, 4);

    private static String chunk(String delta, String usage) {
        return "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":" + delta
                + ",\"finish_reason\":null}],\"usage\":" + usage + "}\n\n";
    }

    /** One response: the tracker, what the client received, and what it had received when onDone ran. */
    private static final class Run {
        final ByteArrayOutputStream client = new ByteArrayOutputStream();
        final List<byte[]> clientAtDone = new ArrayList<>();
        final SseUsageTracker tracker;

        Run(Mode mode) {
            this(mode, SseUsageTracker.DEFAULT_MAX_EVENT_BYTES);
        }

        Run(Mode mode, int maxEventBytes) {
            tracker = new SseUsageTracker(mode, COUNTER, () -> clientAtDone.add(client.toByteArray()), maxEventBytes);
        }

        Run write(String text) throws IOException {
            byte[] bytes = bytes(text);
            return write(bytes, 0, bytes.length);
        }

        Run write(byte[] bytes, int offset, int length) throws IOException {
            tracker.write(bytes, offset, length, client);
            return this;
        }

        /** Writes the text in pieces ending at the given cut positions (byte offsets), then finishes. */
        Run writeCut(String text, int... cuts) throws IOException {
            byte[] bytes = bytes(text);
            int start = 0;
            for (int cut : cuts) {
                write(bytes, start, cut - start);
                start = cut;
            }
            write(bytes, start, bytes.length - start);
            return finish();
        }

        Run finish() throws IOException {
            tracker.finish(client);
            return this;
        }

        String output() {
            return client.toString(StandardCharsets.UTF_8);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static void assertTracked(Run run) {
        assertThat(run.tracker.usage()).contains(EXPECTED_USAGE);
        assertThat(run.tracker.sawDone()).isTrue();
        assertThat(run.clientAtDone).hasSize(1);
    }

    /**
     * The stream without its usage, written with the same cuts: then the completion text is what is
     * charged, and it is counted whole.
     */
    private static void assertTextCounted(Mode mode, String withoutUsage, int... cuts) throws IOException {
        Run run = new Run(mode).writeCut(withoutUsage, cuts);
        assertThat(run.output()).isEqualTo(withoutUsage);
        assertThat(run.tracker.usage()).isEmpty();
        assertThat(run.tracker.sawDone()).isTrue();
        assertThat(run.tracker.streamedCompletionTokens()).isEqualTo(COUNTER.count(COMPLETION)).isEqualTo(8);
    }

    @Test
    void passThroughForwardsEveryByteAndTakesTheUsage() throws IOException {
        Run run = new Run(Mode.PASS_THROUGH).write(STREAM).finish();
        assertThat(run.output()).isEqualTo(STREAM);
        assertTracked(run);
        assertThat(run.clientAtDone.get(0)).isEmpty();
        assertTextCounted(Mode.PASS_THROUGH, STREAM_WITHOUT_USAGE);
    }

    @Test
    void aStreamThatReportedItsUsageKeepsNoText() throws IOException {
        // the usage is what is charged: the content chunks before it are never read
        Run run = new Run(Mode.PASS_THROUGH).write(STREAM).finish();
        assertThat(run.tracker.usage()).contains(EXPECTED_USAGE);
        assertThat(run.tracker.streamedCompletionTokens()).isZero();
    }

    @Test
    void passThroughDoesNotDependOnWhereTheStreamIsCut() throws IOException {
        byte[] stream = bytes(STREAM);
        for (int cut = 0; cut <= stream.length; cut++) {
            Run run = new Run(Mode.PASS_THROUGH).writeCut(STREAM, cut);
            assertThat(run.client.toByteArray()).isEqualTo(stream);
            assertTracked(run);
            assertTextCounted(Mode.PASS_THROUGH, STREAM_WITHOUT_USAGE, Math.min(cut, bytes(STREAM_WITHOUT_USAGE).length));
            // onDone runs before the write that completes [DONE] reaches the client
            byte[] expectedAtDone = cut < stream.length ? Arrays.copyOf(stream, cut) : new byte[0];
            assertThat(run.clientAtDone.get(0)).isEqualTo(expectedAtDone);
        }
    }

    @Test
    void passThroughByteByByte() throws IOException {
        byte[] stream = bytes(STREAM);
        Run run = new Run(Mode.PASS_THROUGH);
        for (int i = 0; i < stream.length; i++) {
            run.write(stream, i, 1);
            assertThat(run.client.size()).isEqualTo(i + 1);
        }
        run.finish();
        assertThat(run.client.toByteArray()).isEqualTo(stream);
        assertTracked(run);
        assertThat(run.clientAtDone.get(0)).isEqualTo(Arrays.copyOf(stream, stream.length - 1));
        assertTextCounted(Mode.PASS_THROUGH, STREAM_WITHOUT_USAGE,
                java.util.stream.IntStream.range(1, bytes(STREAM_WITHOUT_USAGE).length).toArray());
    }

    @Test
    void stripRemovesTheUsageOnlyEvent() throws IOException {
        Run run = new Run(Mode.STRIP_USAGE_EVENT).write(STREAM).finish();
        assertThat(run.output()).isEqualTo(STREAM_WITHOUT_USAGE);
        assertTracked(run);
        assertThat(run.clientAtDone.get(0)).isEmpty();
        assertTextCounted(Mode.STRIP_USAGE_EVENT, STREAM_WITHOUT_USAGE);
    }

    @Test
    void stripDoesNotDependOnWhereTheStreamIsCut() throws IOException {
        byte[] stream = bytes(STREAM);
        for (int cut = 0; cut <= stream.length; cut++) {
            Run run = new Run(Mode.STRIP_USAGE_EVENT).writeCut(STREAM, cut);
            assertThat(run.output()).isEqualTo(STREAM_WITHOUT_USAGE);
            assertTracked(run);
            assertTextCounted(Mode.STRIP_USAGE_EVENT, STREAM_WITHOUT_USAGE, Math.min(cut, bytes(STREAM_WITHOUT_USAGE).length));
            String expectedAtDone = cut < stream.length ? completedEventsWithoutUsage(cut) : "";
            assertThat(run.clientAtDone.get(0)).isEqualTo(bytes(expectedAtDone));
        }
    }

    private static String completedEventsWithoutUsage(int byteCount) {
        StringBuilder completed = new StringBuilder();
        int end = 0;
        for (String event : EVENTS) {
            end += bytes(event).length;
            if (end <= byteCount && !event.equals(USAGE)) {
                completed.append(event);
            }
        }
        return completed.toString();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void randomCutsWithCrLfLines(Mode mode) throws IOException {
        String stream = STREAM.replace("\n", "\r\n");
        String expected = (mode == Mode.PASS_THROUGH ? STREAM : STREAM_WITHOUT_USAGE).replace("\n", "\r\n");
        int length = bytes(stream).length;
        Random random = new Random(42);
        for (int round = 0; round < 300; round++) {
            int[] cuts = random.ints(1 + random.nextInt(12), 0, length + 1).sorted().toArray();
            Run run = new Run(mode).writeCut(stream, cuts);
            assertThat(run.output()).isEqualTo(expected);
            assertTracked(run);
            String withoutUsage = STREAM_WITHOUT_USAGE.replace("\n", "\r\n");
            assertTextCounted(mode, withoutUsage, Arrays.stream(cuts).map(cut -> Math.min(cut, bytes(withoutUsage).length)).toArray());
        }
    }

    @Test
    void stripHoldsBackOnlyTheIncompleteEvent() throws IOException {
        Run run = new Run(Mode.STRIP_USAGE_EVENT);
        int half = CONTENT_2.length() / 2;
        run.write(ROLE + CONTENT_1 + CONTENT_2.substring(0, half));
        assertThat(run.output()).isEqualTo(ROLE + CONTENT_1);
        run.write(CONTENT_2.substring(half) + STOP.substring(0, 10));
        assertThat(run.output()).isEqualTo(ROLE + CONTENT_1 + CONTENT_2);
        run.write(STOP.substring(10) + USAGE);
        assertThat(run.output()).isEqualTo(ROLE + CONTENT_1 + CONTENT_2 + STOP);
        run.write("data: [DO");
        assertThat(run.output()).isEqualTo(ROLE + CONTENT_1 + CONTENT_2 + STOP);
        run.write("NE]\n");
        assertThat(run.output()).isEqualTo(ROLE + CONTENT_1 + CONTENT_2 + STOP);
        assertThat(run.tracker.sawDone()).isFalse();
        run.write("\n");
        assertThat(run.output()).isEqualTo(STREAM_WITHOUT_USAGE);
        assertThat(run.tracker.sawDone()).isTrue();
        run.finish();
        assertThat(run.output()).isEqualTo(STREAM_WITHOUT_USAGE);
    }

    @Test
    void respectsOffsetAndLength() throws IOException {
        byte[] stream = bytes("GARBAGE" + STREAM + "MORE GARBAGE\n\n");
        Run run = new Run(Mode.STRIP_USAGE_EVENT).write(stream, 7, bytes(STREAM).length).finish();
        assertThat(run.output()).isEqualTo(STREAM_WITHOUT_USAGE);
        assertTracked(run);
    }

    @Test
    void usageOnEveryChunkIsKeptAndTheLastOneCounts() throws IOException {
        String stream = chunk("{\"content\":\"a\"}", "{\"prompt_tokens\":9,\"completion_tokens\":1}")
                + chunk("{\"content\":\"b\"}", "{\"prompt_tokens\":9,\"completion_tokens\":2}")
                + "data: {\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":3}}\n\n"
                + chunk("{\"content\":\"c\"}", "null")
                + DONE;
        Run run = new Run(Mode.STRIP_USAGE_EVENT).write(stream).finish();
        assertThat(run.output()).isEqualTo(stream);
        assertThat(run.tracker.usage()).contains(new Usage(9, 3, 0));
    }

    @Test
    void aLaterUsageOnlyEventIsStrippedEvenWhenItsUsageIsUnusable() throws IOException {
        String unusable = "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":-1}}\n\n";
        Run run = new Run(Mode.STRIP_USAGE_EVENT).write(CONTENT_1 + unusable + DONE).finish();
        assertThat(run.output()).isEqualTo(CONTENT_1 + DONE);
        assertThat(run.tracker.usage()).isEmpty();
    }

    @Test
    void otherFieldsAndMalformedDataArePassedThroughAndIgnored() throws IOException {
        String stream = ": keep-alive comment\n\n"
                + "event: ping\nid: 7\nretry: 100\n\n"
                + "\n\n"
                + "data: {not json\n\n"
                + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}} trailing\n\n"
                + "data: [{\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}]\n\n"
                + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}\n\n"
                + "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}],\"usage\":\"12\"}\n\n"
                + "data: [DONE] \n\n"
                + "dat: [DONE]\n\n";
        for (Mode mode : Mode.values()) {
            Run run = new Run(mode).write(stream).finish();
            assertThat(run.output()).isEqualTo(stream);
            assertThat(run.tracker.usage()).isEmpty();
            assertThat(run.tracker.sawDone()).isFalse();
            assertThat(run.clientAtDone).isEmpty();
            assertThat(run.tracker.streamedCompletionTokens()).isEqualTo(1);
        }
    }

    @Test
    void dataSplitOverLinesIsJoined() throws IOException {
        String usage = "event: message\ndata:{\"choices\":[],\r\ndata: \"usage\":{\"prompt_tokens\":2,\n"
                + "data:\"completion_tokens\":3}}\n\n";
        Run run = new Run(Mode.STRIP_USAGE_EVENT).write(CONTENT_1 + usage + "data:[DONE]\n\n").finish();
        assertThat(run.output()).isEqualTo(CONTENT_1 + "data:[DONE]\n\n");
        assertThat(run.tracker.usage()).contains(new Usage(2, 3, 0));
        assertThat(run.tracker.sawDone()).isTrue();
    }

    @Test
    void countsEveryChoiceRefusalsAndToolCallArguments() throws IOException {
        String stream = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}},{\"index\":1,\"delta\":{\"content\":\" there\"}}]}\n\n"
                + "data: {\"choices\":[{\"delta\":{\"refusal\":\" I can't\"}}]}\n\n"
                + "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\","
                + "\"function\":{\"name\":\"weather\",\"arguments\":\"{\\\"city\\\":\"}}]}}]}\n\n"
                + "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"Paris\\\"}\"}}]}}]}\n\n"
                + "data: {\"choices\":[{\"delta\":{\"content\":null,\"role\":\"assistant\",\"x\":{\"content\":\"no\"}}}]}\n\n"
                + DONE;
        Run run = new Run(Mode.PASS_THROUGH).write(stream).finish();
        assertThat(run.tracker.streamedCompletionTokens())
                .isEqualTo(COUNTER.count("Hi there I can't{\"city\":\"Paris\"}"));
        assertThat(run.tracker.usage()).isEmpty();
    }

    @Test
    void aLongCompletionIsCountedInPiecesLikeTheWholeText() throws IOException {
        String[] words = {"The", "quick", "brown", "fox,", "jumps", "over", "the", "lazy", "dog.", "Über", "naïve", "42"};
        StringBuilder whole = new StringBuilder();
        Run run = new Run(Mode.PASS_THROUGH);
        for (int i = 0; whole.length() < 5 * CompletionText.PIECE_CHARS; i++) {
            String delta = (i == 0 ? "" : " ") + words[i % words.length];
            whole.append(delta);
            run.write(chunk("{\"content\":\"" + delta + "\"}", "null"));
        }
        assertThat(run.tracker.streamedCompletionTokens()).isEqualTo(COUNTER.count(whole.toString()));
    }

    @Test
    void aStreamWithoutDoneStillYieldsUsageOrContent() throws IOException {
        Run run = new Run(Mode.STRIP_USAGE_EVENT).write(ROLE + CONTENT_1 + USAGE).finish();
        assertThat(run.output()).isEqualTo(ROLE + CONTENT_1);
        assertThat(run.tracker.usage()).contains(EXPECTED_USAGE);
        assertThat(run.tracker.sawDone()).isFalse();
        assertThat(run.clientAtDone).isEmpty();
        Run cut = new Run(Mode.STRIP_USAGE_EVENT).write(ROLE + CONTENT_1).finish();
        assertThat(cut.tracker.usage()).isEmpty();
        assertThat(cut.tracker.streamedCompletionTokens()).isEqualTo(COUNTER.count("Grüße, "));
    }

    @Test
    void finishCompletesAnEventLeftWithoutItsBlankLine() throws IOException {
        String usageWithoutBlankLine = USAGE.substring(0, USAGE.length() - 1);
        Run stripped = new Run(Mode.STRIP_USAGE_EVENT).write(CONTENT_1 + usageWithoutBlankLine);
        assertThat(stripped.output()).isEqualTo(CONTENT_1);
        stripped.finish();
        assertThat(stripped.output()).isEqualTo(CONTENT_1);
        assertThat(stripped.tracker.usage()).contains(EXPECTED_USAGE);

        String contentWithoutNewline = CONTENT_2.substring(0, CONTENT_2.length() - 2);
        Run forwarded = new Run(Mode.STRIP_USAGE_EVENT).write(CONTENT_1 + contentWithoutNewline);
        assertThat(forwarded.output()).isEqualTo(CONTENT_1);
        forwarded.finish();
        assertThat(forwarded.output()).isEqualTo(CONTENT_1 + contentWithoutNewline);
        assertThat(forwarded.tracker.streamedCompletionTokens()).isEqualTo(COUNTER.count(COMPLETION));

        Run done = new Run(Mode.PASS_THROUGH).write(CONTENT_1 + "data: [DONE]\r").finish();
        assertThat(done.tracker.sawDone()).isTrue();
    }

    @Test
    void anOversizedEventIsForwardedAsItComesAndNotParsed() throws IOException {
        int max = 256;
        assertThat(bytes(USAGE).length).isLessThan(max);
        String big = chunk("{\"content\":\"" + "y".repeat(400) + "\"}", "null");
        String bigUsage = "data: {\"id\":\"" + "z".repeat(300) + "\",\"choices\":[],"
                + "\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}\n\n";

        Run run = new Run(Mode.STRIP_USAGE_EVENT, max);
        run.write(CONTENT_1 + big.substring(0, 100));
        assertThat(run.output()).isEqualTo(CONTENT_1);
        run.write(big.substring(100, 300));
        assertThat(run.output()).isEqualTo(CONTENT_1 + big.substring(0, 300));
        run.write(big.substring(300, 350));
        assertThat(run.output()).isEqualTo(CONTENT_1 + big.substring(0, 350));
        run.write(big.substring(350) + USAGE + bigUsage + CONTENT_2 + DONE).finish();

        assertThat(run.output()).isEqualTo(CONTENT_1 + big + bigUsage + CONTENT_2 + DONE);
        assertThat(run.tracker.usage()).contains(EXPECTED_USAGE);
        Run withoutUsage = new Run(Mode.STRIP_USAGE_EVENT, max).write(CONTENT_1 + big + CONTENT_2 + DONE).finish();
        assertThat(withoutUsage.tracker.streamedCompletionTokens()).isEqualTo(COUNTER.count(COMPLETION));   // not the big one's

        Run passThrough = new Run(Mode.PASS_THROUGH, max).writeCut(CONTENT_1 + big + USAGE + bigUsage + DONE, 50, 300, 500);
        assertThat(passThrough.output()).isEqualTo(CONTENT_1 + big + USAGE + bigUsage + DONE);
        assertThat(passThrough.tracker.usage()).contains(EXPECTED_USAGE);
        assertThat(passThrough.tracker.sawDone()).isTrue();
    }

    @Test
    void manyEventsInOneHugeWriteAreForwardedInBatches() throws IOException {
        StringBuilder stream = new StringBuilder();
        while (stream.length() < 200_000) {
            stream.append(CONTENT_1).append(USAGE);
        }
        List<Integer> writeSizes = new ArrayList<>();
        ByteArrayOutputStream client = new ByteArrayOutputStream() {
            @Override
            public synchronized void write(byte[] b, int off, int len) {
                writeSizes.add(len);
                super.write(b, off, len);
            }
        };
        SseUsageTracker tracker = new SseUsageTracker(Mode.STRIP_USAGE_EVENT, COUNTER, () -> { });
        byte[] bytes = bytes(stream.toString());
        tracker.write(bytes, 0, bytes.length, client);
        tracker.finish(client);
        assertThat(client.toString(StandardCharsets.UTF_8)).isEqualTo(stream.toString().replace(USAGE, ""));
        assertThat(writeSizes).hasSizeGreaterThan(1).allMatch(size -> size < 64 * 1024 + bytes(CONTENT_1).length);
    }
}
