package dev.llmratelimit.usage;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Property: the same prompt text, placed in any field of any endpoint shape that becomes model input,
 * is estimated at no less than {@value #FRACTION} of the tokenizer's count of that text (the text is
 * tokenized in pieces, which may cost a token at a cut), for both tokenizers and texts of every kind
 * a seeded generator makes: prose, code, JSON-like text, non-Latin scripts, emoji, escapes.
 */
class PromptEstimatePropertyTest {

    static final double FRACTION = 0.98;
    private static final long SEED = 20261204L;
    private static final int TEXTS = 60;

    /** Where the text goes: {@code T} is the JSON string literal of the text, {@code B} its UTF-8 bytes in base64. */
    private static final Map<String, Placement> PLACEMENTS = new LinkedHashMap<>();

    private record Placement(EndpointShape shape, Function<Text, String> body) {
    }

    private record Text(String plain, String quoted, String base64) {
    }

    private static void place(String name, EndpointShape shape, Function<Text, String> body) {
        PLACEMENTS.put(name, new Placement(shape, body));
    }

    static {
        String chat = "{\"model\":\"m\",\"messages\":[";
        place("chat user content", EndpointShape.CHAT, t -> chat + "{\"role\":\"user\",\"content\":" + t.quoted + "}]}");
        place("chat system content", EndpointShape.CHAT, t -> chat + "{\"role\":\"system\",\"content\":" + t.quoted + "}]}");
        place("chat developer content", EndpointShape.CHAT, t -> chat + "{\"role\":\"developer\",\"content\":" + t.quoted + "}]}");
        place("chat text part", EndpointShape.CHAT,
                t -> chat + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":" + t.quoted + "}]}]}");
        place("chat tool call arguments", EndpointShape.CHAT, t -> chat + "{\"role\":\"assistant\",\"content\":null,"
                + "\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":" + t.quoted + "}}]}]}");
        place("chat tool result", EndpointShape.CHAT,
                t -> chat + "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":" + t.quoted + "}]}");
        place("chat refusal", EndpointShape.CHAT, t -> chat + "{\"role\":\"assistant\",\"refusal\":" + t.quoted + "}]}");
        place("chat tool description", EndpointShape.CHAT, t -> chat + "],\"tools\":[{\"type\":\"function\",\"function\":"
                + "{\"name\":\"f\",\"description\":" + t.quoted + ",\"parameters\":{\"type\":\"object\"}}}]}");
        place("chat tool parameter description", EndpointShape.CHAT, t -> chat + "],\"tools\":[{\"type\":\"function\","
                + "\"function\":{\"name\":\"f\",\"parameters\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\","
                + "\"description\":" + t.quoted + "}}}}}]}");
        place("chat legacy function", EndpointShape.CHAT, t -> chat + "],\"functions\":[{\"name\":\"f\",\"description\":"
                + t.quoted + "}]}");
        place("chat response_format schema", EndpointShape.CHAT, t -> chat + "],\"response_format\":{\"type\":\"json_schema\","
                + "\"json_schema\":{\"name\":\"r\",\"schema\":{\"type\":\"object\",\"description\":" + t.quoted + "}}}}");
        place("chat text file", EndpointShape.CHAT, t -> chat + "{\"role\":\"user\",\"content\":[{\"type\":\"file\",\"file\":"
                + "{\"filename\":\"a.txt\",\"file_data\":\"data:text/plain;base64," + t.base64 + "\"}}]}]}");
        place("chat prediction", EndpointShape.CHAT, t -> chat + "],\"prediction\":{\"type\":\"content\",\"content\":"
                + t.quoted + "}}");

        place("completions prompt", EndpointShape.COMPLETIONS, t -> "{\"model\":\"m\",\"prompt\":" + t.quoted + "}");
        place("completions prompt array", EndpointShape.COMPLETIONS, t -> "{\"model\":\"m\",\"prompt\":[" + t.quoted + "]}");
        place("completions suffix", EndpointShape.COMPLETIONS,
                t -> "{\"model\":\"m\",\"prompt\":\"\",\"suffix\":" + t.quoted + "}");

        place("embeddings input", EndpointShape.EMBEDDINGS, t -> "{\"model\":\"m\",\"input\":" + t.quoted + "}");
        place("embeddings input array", EndpointShape.EMBEDDINGS, t -> "{\"model\":\"m\",\"input\":[" + t.quoted + "]}");

        String responses = "{\"model\":\"m\",";
        place("responses instructions", EndpointShape.RESPONSES, t -> responses + "\"instructions\":" + t.quoted + ",\"input\":\"hi\"}");
        place("responses input", EndpointShape.RESPONSES, t -> responses + "\"input\":" + t.quoted + "}");
        place("responses input_text", EndpointShape.RESPONSES, t -> responses + "\"input\":[{\"role\":\"user\",\"content\":"
                + "[{\"type\":\"input_text\",\"text\":" + t.quoted + "}]}]}");
        place("responses function_call arguments", EndpointShape.RESPONSES, t -> responses + "\"input\":[{\"type\":\"function_call\","
                + "\"call_id\":\"c1\",\"name\":\"f\",\"arguments\":" + t.quoted + "}]}");
        place("responses function_call_output", EndpointShape.RESPONSES, t -> responses + "\"input\":[{\"type\":"
                + "\"function_call_output\",\"call_id\":\"c1\",\"output\":" + t.quoted + "}]}");
        place("responses tool description", EndpointShape.RESPONSES, t -> responses + "\"input\":\"hi\",\"tools\":[{\"type\":"
                + "\"function\",\"name\":\"f\",\"description\":" + t.quoted + ",\"parameters\":{}}]}");
        place("responses text format schema", EndpointShape.RESPONSES, t -> responses + "\"input\":\"hi\",\"text\":{\"format\":"
                + "{\"type\":\"json_schema\",\"name\":\"r\",\"schema\":{\"description\":" + t.quoted + "}}}}");
        place("responses input_file", EndpointShape.RESPONSES, t -> responses + "\"input\":[{\"role\":\"user\",\"content\":"
                + "[{\"type\":\"input_file\",\"filename\":\"a.txt\",\"file_data\":\"data:text/plain;base64," + t.base64 + "\"}]}]}");

        String messages = "{\"model\":\"m\",\"max_tokens\":100,";
        place("messages system", EndpointShape.MESSAGES, t -> messages + "\"system\":" + t.quoted + ",\"messages\":[]}");
        place("messages system blocks", EndpointShape.MESSAGES, t -> messages + "\"system\":[{\"type\":\"text\",\"text\":"
                + t.quoted + ",\"cache_control\":{\"type\":\"ephemeral\"}}],\"messages\":[]}");
        place("messages content", EndpointShape.MESSAGES, t -> messages + "\"messages\":[{\"role\":\"user\",\"content\":" + t.quoted + "}]}");
        place("messages text block", EndpointShape.MESSAGES, t -> messages + "\"messages\":[{\"role\":\"user\",\"content\":"
                + "[{\"type\":\"text\",\"text\":" + t.quoted + "}]}]}");
        place("messages tool_use input", EndpointShape.MESSAGES, t -> messages + "\"messages\":[{\"role\":\"assistant\",\"content\":"
                + "[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"f\",\"input\":{\"q\":" + t.quoted + "}}]}]}");
        place("messages tool_result", EndpointShape.MESSAGES, t -> messages + "\"messages\":[{\"role\":\"user\",\"content\":"
                + "[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":" + t.quoted + "}]}]}");
        place("messages tool_result blocks", EndpointShape.MESSAGES, t -> messages + "\"messages\":[{\"role\":\"user\",\"content\":"
                + "[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":[{\"type\":\"text\",\"text\":" + t.quoted + "}]}]}]}");
        place("messages tool description", EndpointShape.MESSAGES, t -> messages + "\"messages\":[],\"tools\":[{\"name\":\"f\","
                + "\"description\":" + t.quoted + ",\"input_schema\":{\"type\":\"object\"}}]}");
        place("messages tool schema", EndpointShape.MESSAGES, t -> messages + "\"messages\":[],\"tools\":[{\"name\":\"f\","
                + "\"input_schema\":{\"type\":\"object\",\"properties\":{\"q\":{\"description\":" + t.quoted + "}}}}]}");
        place("messages text document", EndpointShape.MESSAGES, t -> messages + "\"messages\":[{\"role\":\"user\",\"content\":"
                + "[{\"type\":\"document\",\"source\":{\"type\":\"text\",\"media_type\":\"text/plain\",\"data\":" + t.quoted + "}}]}]}");
        place("messages base64 text document", EndpointShape.MESSAGES, t -> messages + "\"messages\":[{\"role\":\"user\","
                + "\"content\":[{\"type\":\"document\",\"source\":{\"type\":\"base64\",\"media_type\":\"text/plain\",\"data\":\""
                + t.base64 + "\"}}]}]}");
    }

    @Test
    void theEstimateNeverFallsBelowTheTokenizersCountOfThePromptWhereverItIsPlaced() {
        Random random = new Random(SEED);
        int checked = 0;
        for (int i = 0; i < TEXTS; i++) {
            Text text = text(random);
            for (TokenCounter counter : new TokenCounter[] {TokenCounter.forModel("gpt-4o"), TokenCounter.forModel("gpt-4")}) {
                long tokens = counter.count(text.plain);
                for (Map.Entry<String, Placement> placement : PLACEMENTS.entrySet()) {
                    byte[] body = placement.getValue().body.apply(text).getBytes(StandardCharsets.UTF_8);
                    long estimate = RequestPromptTokens.count(counter, placement.getValue().shape, body, body.length);
                    assertThat((double) estimate)
                            .as("%s, %s, text %d (%d tokens)", placement.getKey(), counter.encodingName(), i, tokens)
                            .isGreaterThanOrEqualTo(FRACTION * tokens);
                    checked++;
                }
            }
        }
        assertThat(checked).isEqualTo(TEXTS * 2 * PLACEMENTS.size());
    }

    private static final String[] WORDS = {
        "the", "model", "token", "ignore", "previous", "instructions", "Ω", "naïve", "façade", "日本語", "テキスト",
        "данные", "مرحبا", "🙂", "🚀🚀", "if (x != null) {", "return x;", "}", "\"quoted\"", "back\\slash", "\t", "\n",
        "12345", "3.14159", "{\"k\":[1,2]}", "<|endoftext|>", "https://example.com/a?b=c", "aaaaaaaaaaaaaaaaaaaaaaaa",
        "QUFBQUFBQUFBQUFBQUFBQQ==", "data:", "   ", "ß", "\u00e9\u0301", "\uD834\uDD1E"};

    /** A text of 20 to 6,000 characters: words and random code points, spaced or run together. */
    private static Text text(Random random) {
        StringBuilder text = new StringBuilder("Start ");
        int target = 20 + random.nextInt(random.nextBoolean() ? 400 : 6_000);
        boolean spaced = random.nextInt(4) != 0;
        while (text.length() < target) {
            if (random.nextInt(5) == 0) {
                int codePoint = random.nextBoolean() ? 0x21 + random.nextInt(0x5E) : 0xA0 + random.nextInt(0x3000);
                if (!Character.isSurrogate((char) codePoint)) {
                    text.appendCodePoint(codePoint);
                }
            } else {
                text.append(WORDS[random.nextInt(WORDS.length)]);
            }
            if (spaced) {
                text.append(' ');
            }
        }
        String plain = text.toString();
        return new Text(plain, '"' + new String(JsonStringEncoder.getInstance().quoteAsString(plain)) + '"',
                Base64.getEncoder().encodeToString(plain.getBytes(StandardCharsets.UTF_8)));
    }
}
