package dev.llmratelimit.usage;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Chunks held unread must read as chunks read at once: the same kind for every chunk, the same
 * usage whenever it is asked for, the same completion text.
 */
class ChatStreamEventsTest {

    private static final TokenCounter COUNTER = TokenCounter.forModel("gpt-4o");

    /** Every chunk read as it comes: what a held chunk must come to. */
    private static final class EagerEvents {
        final CompletionText text = new CompletionText(COUNTER);
        Usage usage;

        StreamEvents.Kind read(byte[] data) {
            if (new String(data, StandardCharsets.UTF_8).equals("[DONE]")) {
                return StreamEvents.Kind.END;
            }
            StreamChunk chunk = StreamChunk.parse(data, 0, data.length, text::append);
            if (chunk == null) {
                return StreamEvents.Kind.OTHER;
            }
            if (chunk.usage() != null) {
                usage = chunk.usage();
            }
            return chunk.usageOnly() ? StreamEvents.Kind.USAGE_ONLY : StreamEvents.Kind.OTHER;
        }
    }

    @Test
    void heldChunksReadAsChunksReadAtOnce() {
        Random random = new Random(7);
        int usagesCompared = 0;
        int textsCompared = 0;
        for (int stream = 0; stream < 3_000; stream++) {
            EagerEvents eager = new EagerEvents();
            CompletionText heldText = new CompletionText(COUNTER);
            ChatStreamEvents held = new ChatStreamEvents(heldText);
            int chunks = random.nextInt(stream % 50 == 0 ? 400 : 12);
            List<String> written = new ArrayList<>();
            for (int c = 0; c < chunks; c++) {
                String data = chunk(random);
                written.add(data);
                // now and then in UTF-16, which Jackson reads as well, found from its first bytes
                byte[] bytes = data.getBytes(random.nextInt(30) == 0 ? StandardCharsets.UTF_16LE : StandardCharsets.UTF_8);
                // the chunk sits inside a larger buffer, as in the tracker
                byte[] framed = new byte[bytes.length + 7];
                System.arraycopy(bytes, 0, framed, 3, bytes.length);
                assertThat(held.read(framed, 3, bytes.length)).as("chunk %s", data).isEqualTo(eager.read(bytes));
                if (random.nextInt(6) == 0) {
                    assertThat(held.usage()).as("usage after %s", written).isEqualTo(eager.usage);
                    usagesCompared++;
                }
            }
            assertThat(held.usage()).as("usage of %s", written).isEqualTo(eager.usage);
            if (eager.usage == null) {            // the text is read only for a stream without usage
                held.readHeld();
                assertThat(heldText.tokens()).as("text of %s", written).isEqualTo(eager.text.tokens());
                assertThat(held.usage()).isEqualTo(eager.usage);
                textsCompared++;
            }
            usagesCompared++;
        }
        assertThat(usagesCompared).isGreaterThan(4_000);
        assertThat(textsCompared).isGreaterThan(500);
    }

    @Test
    void aStreamWithoutUsageCountsTheTextOfEveryChunkHeldOrRead() {
        CompletionText text = new CompletionText(COUNTER);
        ChatStreamEvents events = new ChatStreamEvents(text);
        StringBuilder expected = new StringBuilder();
        // enough chunks to fill the held bytes several times over
        for (int c = 0; c < 2_000; c++) {
            String word = " word" + c;
            expected.append(word);
            byte[] data = content(word).getBytes(StandardCharsets.UTF_8);
            assertThat(events.read(data, 0, data.length)).isEqualTo(StreamEvents.Kind.OTHER);
        }
        assertThat(events.usage()).isNull();
        events.readHeld();
        assertThat(text.tokens()).isEqualTo(COUNTER.count(expected.toString()));
    }

    @Test
    void thousandsOfEmptyOrTinyChunksHoldBoundedMemory() {
        ChatStreamEvents events = new ChatStreamEvents(new CompletionText(COUNTER));
        byte[] tiny = {'{', '}'};
        byte[] nothing = {};
        for (int c = 0; c < 1_000_000; c++) {
            events.read(tiny, 0, tiny.length);
            events.read(nothing, 0, 0);
            assertThat(events.heldWeight()).isLessThanOrEqualTo(ChatStreamEvents.HELD_BYTES);
        }
        assertThat(events.usage()).isNull();
    }

    @Test
    void onlyAChunkWithAnEmptyArrayMayBeTheUsageOnlyChunk() {
        assertThat(has("{\"choices\":[],\"usage\":{}}")).isTrue();
        assertThat(has("{\"choices\":[ \n\r\t ],\"usage\":{}}")).isTrue();
        assertThat(has("{\"choices\":[{\"delta\":{\"content\":\"[]\"}}]}")).isTrue();   // in a string: read at once, harmlessly
        assertThat(has("{\"choices\":[{\"delta\":{}}],\"usage\":null}")).isFalse();
        assertThat(has("{\"choices\":[0],\"x\":[")).isFalse();
        assertThat(has("[ x ]")).isFalse();
    }

    private static boolean has(String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        return ChatStreamEvents.hasEmptyArray(bytes, 0, bytes.length);
    }

    private static String content(String text) {
        return "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
                + text + "\"},\"finish_reason\":null}],\"usage\":null}";
    }

    /** One chunk's data: content, tool calls, refusals, usage in every form, and malformed data. */
    private static String chunk(Random random) {
        String usage = switch (random.nextInt(6)) {
            case 0 -> "{\"prompt_tokens\":" + random.nextInt(100) + ",\"completion_tokens\":" + random.nextInt(100)
                    + ",\"total_tokens\":" + random.nextInt(200) + "}";
            case 1 -> "{\"prompt_tokens\":-1,\"completion_tokens\":2}";
            case 2 -> "7";
            default -> "null";
        };
        String text = Arrays.asList("Hi", " there", "[]", " ü🌍", "\\n\\u00e9", "", " [ ]").get(random.nextInt(7));
        String data = switch (random.nextInt(10)) {
            case 0 -> "{\"id\":\"c\",\"choices\":[],\"usage\":" + usage + "}";
            case 1 -> "{\"id\":\"c\",\"choices\":[ ],\"usage\":" + usage + "}";
            case 2 -> "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":\"" + text
                    + "\"}}]}}],\"usage\":" + usage + "}";
            case 3 -> "{\"choices\":[{\"delta\":{\"refusal\":\"" + text + "\"},\"logprobs\":{\"content\":[]}}],\"usage\":"
                    + usage + "}";
            case 4 -> "{\"choices\":[{\"text\":\"" + text + "\"}]}";
            case 5 -> "{\"choices\":[],\"usage\":" + usage + ",\"choices\":[{\"delta\":{\"content\":\"" + text + "\"}}]}";
            case 6 -> "{\"choices\":[{\"delta\":{\"content\":\"" + text + "\"}}],\"usage\":" + usage + "} {}";
            case 7 -> random.nextBoolean() ? "[DONE]" : "";
            case 8 -> "{\"choices\":[{\"delta\":{\"content\":\"" + text + "\"}}],\"usage\":" + usage
                    + ",\"choices\":[]}";                                       // usage-only by its last choices
            default -> content(text);
        };
        if (random.nextInt(15) == 0) {
            data = data.substring(0, random.nextInt(data.length() + 1));  // cut: malformed
        }
        if (random.nextInt(40) == 0) {
            data = content("x".repeat(ChatStreamEvents.HELD_BYTES));       // larger than all that may be held
        }
        return data;
    }
}
