package dev.llmratelimit.usage;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class TokenCounterTest {

    private static final EncodingRegistry REGISTRY = Encodings.newLazyEncodingRegistry();
    private static final Encoding CL100K = REGISTRY.getEncoding(EncodingType.CL100K_BASE);
    private static final Encoding O200K = REGISTRY.getEncoding(EncodingType.O200K_BASE);

    private static final TokenCounter GPT4 = TokenCounter.forModel("gpt-4");
    private static final TokenCounter GPT4O = TokenCounter.forModel("gpt-4o");

    @ParameterizedTest
    @CsvSource({
        "gpt-4o, o200k_base", "gpt-4o-mini-2024-07-18, o200k_base", "chatgpt-4o-latest, o200k_base",
        "gpt-4.1, o200k_base", "gpt-4.1-nano, o200k_base", "gpt-4.5-preview, o200k_base", "gpt-5, o200k_base",
        "gpt-5-mini, o200k_base", "o1, o200k_base", "o1-mini, o200k_base", "o3-mini, o200k_base", "o4-mini, o200k_base",
        "openai/gpt-4o, o200k_base", "azure/openai/o3, o200k_base",
        "gpt-4, cl100k_base", "gpt-4-turbo, cl100k_base", "gpt-4-0613, cl100k_base", "gpt-3.5-turbo, cl100k_base",
        "gpt-3.5-turbo-16k, cl100k_base", "llama-3.1-70b, cl100k_base", "mistral/o1x, o200k_base", "'', cl100k_base",
        "GPT-4O, cl100k_base", "claude-3-opus, cl100k_base",
    })
    void choosesTheEncodingByModelName(String model, String encoding) {
        assertThat(TokenCounter.forModel(model).encodingName()).isEqualTo(encoding);
    }

    @Test
    void instancesAreShared() {
        assertThat(TokenCounter.forModel("gpt-4o-mini")).isSameAs(GPT4O);
        assertThat(TokenCounter.forModel("some-model")).isSameAs(GPT4);
    }

    @Test
    void knownCounts() {
        assertThat(GPT4.count("hello world")).isEqualTo(2);
        assertThat(GPT4.count("tiktoken is great!")).isEqualTo(6);
        assertThat(GPT4O.count("hello world")).isEqualTo(2);
        assertThat(GPT4.count("")).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"Grüße aus Köln! 🌍🚀", "日本語のテキストです。", "def f(x):\n    return x ** 2\n",
        "   leading and trailing spaces   ", "1234567890 3.14159 -42"})
    void countsLikeTheEncoding(String text) {
        assertThat(GPT4.count(text)).isEqualTo(CL100K.countTokens(text));
        assertThat(GPT4O.count(text)).isEqualTo(O200K.countTokens(text));
    }

    @Test
    void specialTokenTextIsOrdinaryText() {
        String text = "ignore <|endoftext|> and <|im_start|>";
        assertThat(GPT4.count(text)).isEqualTo(CL100K.countTokensOrdinary(text)).isGreaterThan(3);
    }

    /** The example of the OpenAI cookbook "How to count tokens with tiktoken": 129 tokens with cl100k, 124 with o200k. */
    @Test
    void cookbookExample() {
        String body = """
                {"model":"gpt-4","messages":[
                 {"role":"system","content":"You are a helpful, pattern-following assistant that translates corporate jargon into plain English."},
                 {"role":"system","name":"example_user","content":"New synergies will help drive top-line growth."},
                 {"role":"system","name":"example_assistant","content":"Things working well together will increase revenue."},
                 {"role":"system","name":"example_user","content":"Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage."},
                 {"role":"system","name":"example_assistant","content":"Let's talk later when we're less busy about how to do better."},
                 {"role":"user","content":"This late pivot means we don't have time to boil the ocean for the client deliverable."}
                ]}""";
        assertThat(promptTokens(GPT4, body)).isEqualTo(129);
        assertThat(promptTokens(GPT4O, body)).isEqualTo(124);
    }

    @Test
    void countsStringFieldsAndTextParts() {
        String body = """
                {"stream":true,"messages":[
                  {"role":"system","content":"Be brief."},
                  {"role":"user","name":"ann","content":[
                     {"type":"text","text":"What is in this picture?"},
                     {"text":"Answer in French.","type":"text"}
                  ]},
                  {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},
                  {"role":"tool","tool_call_id":"c1","content":"42"},
                  "not a message", 7
                ],"model":"gpt-4o","max_tokens":10}""";
        long expected = 3
                + 3 + O200K.countTokens("system") + O200K.countTokens("Be brief.")
                + 3 + O200K.countTokens("user") + O200K.countTokens("ann") + 1
                + O200K.countTokens("What is in this picture?") + O200K.countTokens("Answer in French.")
                + 3 + O200K.countTokens("assistant") + O200K.countTokens("c1") + 1 + O200K.countTokens("f")
                + O200K.countTokens("{}")
                + 3 + O200K.countTokens("tool") + O200K.countTokens("c1") + O200K.countTokens("42")
                + O200K.countTokens("not a message") + 1;
        assertThat(promptTokens(GPT4O, body)).isEqualTo(expected);
        // priming; system "Be brief."; user, name ann (+1), two text parts; assistant, its call's id, name (+1)
        // and arguments; tool, "c1" (2 tokens), "42"; a stray string and a stray number
        assertThat(expected).isEqualTo(3 + (3 + 1 + 3) + (3 + 1 + 1 + 1 + 6 + 4) + (3 + 1 + 2 + 1 + 1 + 1)
                + (3 + 1 + 2 + 1) + 3 + 1);
    }

    @Test
    void bodiesWithoutMessagesCostThePrimingOnlyAndAMessagesObjectItsText() {
        assertThat(promptTokens(GPT4, "{\"model\":\"gpt-4\"}")).isEqualTo(3);
        assertThat(promptTokens(GPT4, "{\"model\":\"gpt-4\",\"messages\":[]}")).isEqualTo(3);
        assertThat(promptTokens(GPT4, "{\"model\":\"gpt-4\",\"messages\":{\"role\":\"user\"}}")).isEqualTo(3 + 1);
        assertThat(promptTokens(GPT4, "[]")).isEqualTo(3);
        assertThat(promptTokens(GPT4, "")).isEqualTo(3);
    }

    @Test
    void malformedBodiesCountWhatWasRead() {
        String body = "{\"messages\":[{\"role\":\"user\",\"content\":\"hello world\"},{\"role\":\"user\",\"content\":";
        assertThat(promptTokens(GPT4, body)).isEqualTo(3 + (3 + 1 + 2) + (3 + 1));
    }

    private static long promptTokens(TokenCounter counter, String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return counter.promptTokens(bytes, bytes.length);
    }

    @Test
    void longProseIsCountedInPiecesExactlyAsAWhole() {
        String prose = "The quick brown fox jumps over the lazy dog, twice. ".repeat(4000);
        assertThat(prose.length()).isGreaterThan(50 * TokenCounter.PIECE_CHARS);
        assertThat(GPT4O.count(prose)).isEqualTo(O200K.countTokensOrdinary(prose));
        assertThat(GPT4.count(prose)).isEqualTo(CL100K.countTokensOrdinary(prose));
    }

    @Test
    void textWithoutSpacesIsCutInTheMiddleOfEachPiece() {
        String letters = "x".repeat(TokenCounter.PIECE_CHARS * 3 + 5);
        int half = TokenCounter.PIECE_CHARS / 2;
        // no space to cut before: pieces of half a piece while more than a piece is left (5), then the rest
        long expected = 5 * O200K.countTokensOrdinary("x".repeat(half))
                + O200K.countTokensOrdinary("x".repeat(letters.length() - 5 * half));
        assertThat(GPT4O.count(letters)).isEqualTo(expected);
    }

    private static byte[] bodyOfBytes(int length) {
        String head = "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"";
        String tail = "\"}]}";
        return (head + "word ".repeat((length - head.length() - tail.length()) / 5 + 1)).substring(0, length - tail.length())
                .concat(tail).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aBodyOverTheCapIsEstimatedByItsUpperBoundWithoutTokenizing() {
        byte[] atCap = bodyOfBytes(TokenCounter.EXACT_COUNT_LIMIT_BYTES);
        byte[] overCap = bodyOfBytes(TokenCounter.EXACT_COUNT_LIMIT_BYTES + 1);
        assertThat(GPT4O.promptTokens(atCap, atCap.length)).isBetween(200_000L, 220_000L);   // tokenized: a word is a token
        assertThat(GPT4O.promptTokens(overCap, overCap.length)).isEqualTo(TokenCounter.upperBound(overCap.length))
                .isEqualTo(1_572_868L);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"messages\":[{},{},{},{},{}]}",
        "{\"messages\":[{\"name\":\"\",\"content\":\"\"},{\"name\":\"a\"}]}",
        "{\"messages\":[{\"role\":\"user\",\"content\":\"\u4f60\u597d\u4e16\u754c\ud83c\udf0d\"}]}",
        "{\"messages\":[{\"content\":[{\"type\":\"text\",\"text\":\"a b c d e f g\"}]}]}",
    })
    void theUpperBoundIsNeverBelowTheCountInAnyEncoding(String json) {
        for (String charset : new String[] {"UTF-8", "UTF-16LE", "UTF-32BE"}) {
            byte[] body = json.getBytes(java.nio.charset.Charset.forName(charset));
            assertThat(GPT4O.promptTokens(body, body.length)).as(charset).isLessThanOrEqualTo(TokenCounter.upperBound(body.length));
            assertThat(GPT4.promptTokens(body, body.length)).as(charset).isLessThanOrEqualTo(TokenCounter.upperBound(body.length));
        }
    }
}
