package dev.llmratelimit.usage;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.util.Set;

/**
 * Estimates the prompt tokens of a request body of any endpoint shape: everything in the body that
 * becomes model input counts, wherever it sits. One streaming pass over the body's bytes (the encoding
 * Jackson detects, as every reading of the body does), skipping only the fields that are settings and
 * never input ({@link #SETTINGS}); a field this class does not know counts as input.
 *
 * <ul>
 *   <li>The prompt fields of the shape ({@code messages}; {@code prompt}; {@code input};
 *       {@code instructions}; {@code system}) count by the cookbook formula: every item of their
 *       top-level array {@value #TOKENS_PER_ITEM}, a {@code name} 1 more, every string value
 *       ({@code role}, content, text parts, tool calls and their arguments, tool results, ...) by the
 *       tokenizer; the {@code type} tag of a part is structure and does not count. A whole number counts
 *       1 (a token id of a prompt given as tokens).</li>
 *   <li>Every other field that is not a setting ({@code tools} with their schemas, {@code functions},
 *       {@code response_format}, the Responses {@code text.format}, {@code tool_choice}, ...) counts its
 *       keys and its string values by the tokenizer, each number 1: a schema's property names are input.</li>
 *   <li>Files and media inside the prompt fields: inline base64 data ({@code data:} URLs, {@code data},
 *       {@code file_data}) that decodes to UTF-8 text counts as that text; any other inline data, an
 *       image or file given by URL, or a {@code file_id}, counts {@link #MEDIA_PART_TOKENS}, or one token
 *       per {@value #MEDIA_BYTES_PER_TOKEN} bytes of its decoded data when that is more.</li>
 *   <li>A chat body adds {@value #TOKENS_REPLY_PRIMING} priming the reply.</li>
 * </ul>
 * Bounded: a body over {@link TokenCounter#EXACT_COUNT_LIMIT_BYTES} is not parsed (its estimate is
 * {@link TokenCounter#upperBound(long)}), long text is tokenized in pieces, and no estimate exceeds
 * the upper bound of its body's size. Meant for a body the filter accepted; on malformed JSON it returns
 * what it counted up to the fault.
 */
public final class RequestPromptTokens {

    static final int TOKENS_PER_ITEM = 3;
    static final int TOKENS_PER_NAME = 1;
    static final int TOKENS_REPLY_PRIMING = 3;

    /**
     * What one image, audio clip or non-text file counts at least: above the most one image costs
     * (about 1,600 tokens at Anthropic's size cap; 1,105 for a high-detail image of an OpenAI 4o-class model).
     */
    public static final long MEDIA_PART_TOKENS = 1_600;
    /** Inline media count one token per this many decoded bytes when that is more than {@link #MEDIA_PART_TOKENS}. */
    static final int MEDIA_BYTES_PER_TOKEN = 32;

    /** Top-level fields that configure the call and are never model input. */
    static final Set<String> SETTINGS = Set.of(
            "model", "stream", "stream_options", "n", "best_of", "max_tokens", "max_completion_tokens",
            "max_output_tokens", "temperature", "top_p", "top_k", "frequency_penalty", "presence_penalty",
            "logit_bias", "logprobs", "top_logprobs", "echo", "seed", "stop", "stop_sequences", "user",
            "metadata", "store", "service_tier", "parallel_tool_calls", "prompt_cache_key",
            "prompt_cache_retention", "safety_identifier", "previous_response_id", "conversation", "include",
            "truncation", "background", "encoding_format", "dimensions", "modalities", "audio", "reasoning",
            "reasoning_effort", "verbosity", "thinking", "web_search_options", "max_tool_calls");

    private RequestPromptTokens() {
    }

    public static long count(TokenCounter counter, EndpointShape shape, byte[] body, int length) {
        if (length > TokenCounter.EXACT_COUNT_LIMIT_BYTES) {
            return TokenCounter.upperBound(length);
        }
        Walk walk = new Walk(counter);
        walk.tokens = shape == EndpointShape.CHAT ? TOKENS_REPLY_PRIMING : 0;
        try (JsonParser p = JsonUsageParser.JSON.createParser(body, 0, length)) {
            if (p.nextToken() == JsonToken.START_OBJECT) {
                walk.topLevel(p, shape);
            }
        } catch (IOException e) {
            // best effort: the body was validated before; keep what was counted
        }
        return Math.min(walk.tokens, TokenCounter.upperBound(length));
    }

    /** Whether a top-level field of the shape holds the prompt itself (messages, items, text). */
    static boolean isPromptField(EndpointShape shape, String field) {
        return switch (shape) {
            case CHAT -> field.equals("messages");
            case COMPLETIONS -> field.equals("prompt");
            case EMBEDDINGS -> field.equals("input");
            case RESPONSES -> field.equals("input") || field.equals("instructions");
            case MESSAGES -> field.equals("system") || field.equals("messages");
        };
    }

    /** One count; tokens saturate. */
    private static final class Walk {
        private final TokenCounter counter;
        private long tokens;

        Walk(TokenCounter counter) {
            this.counter = counter;
        }

        void topLevel(JsonParser p, EndpointShape shape) throws IOException {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (isPromptField(shape, field)) {
                    if (value == JsonToken.START_ARRAY) {
                        items(p);
                    } else {
                        prompt(p, field);
                    }
                } else if (SETTINGS.contains(field)) {
                    p.skipChildren();
                } else {
                    definition(p);
                }
            }
        }

        /** The top-level array of a prompt field: each object in it is one message or item. */
        private void items(JsonParser p) throws IOException {
            JsonToken element;
            while ((element = p.nextToken()) != JsonToken.END_ARRAY && element != null) {
                if (element == JsonToken.START_OBJECT) {
                    add(TOKENS_PER_ITEM);
                }
                prompt(p, null);
            }
        }

        /** A value inside a prompt field, read to its end; {@code field} is the key it stands under. */
        private void prompt(JsonParser p, String field) throws IOException {
            switch (p.currentToken()) {
                case VALUE_STRING -> add(field == null ? counter.count(p.getText()) : promptString(field, p.getText()));
                case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> add(1);
                case START_ARRAY -> {
                    while (nextElement(p)) {
                        prompt(p, null);
                    }
                }
                case START_OBJECT -> {
                    String type = null;
                    String data = null;
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String name = p.currentName();
                        JsonToken value = p.nextToken();
                        if (name.equals("type") && value == JsonToken.VALUE_STRING) {
                            type = p.getText();                   // a part's tag is structure
                            continue;
                        }
                        if (name.equals("data") && value == JsonToken.VALUE_STRING) {
                            data = p.getText();                   // read once the object's type is known
                            continue;
                        }
                        if (name.equals("name")) {
                            add(TOKENS_PER_NAME);
                        }
                        prompt(p, name);
                    }
                    if (data != null) {
                        // A text source (Anthropic's {"type":"text","media_type":"text/plain","data":...})
                        // is given to the model as written, even when it looks like base64.
                        add("text".equals(type) ? counter.count(data) : promptString("data", data));
                    }
                }
                default -> { }
            }
        }

        /**
         * Only the fields that carry files and media are read as such: text that merely looks like a
         * {@code data:} URL in a text field is text to the model, and counted as text.
         */
        private long promptString(String field, String text) {
            return switch (field) {
                case "file_id" -> MEDIA_PART_TOKENS;
                case "url", "image_url" -> text.startsWith("data:") ? MediaTokens.ofDataUrl(counter, text)
                        : text.startsWith("http://") || text.startsWith("https://") ? MEDIA_PART_TOKENS
                        : counter.count(text);
                case "data", "file_data" -> text.startsWith("data:") ? MediaTokens.ofDataUrl(counter, text)
                        : MediaTokens.ofBase64OrText(counter, text);
                default -> counter.count(text);
            };
        }

        /** A definition (tools, schemas, formats): its keys and values are all input. */
        private void definition(JsonParser p) throws IOException {
            switch (p.currentToken()) {
                case VALUE_STRING -> add(counter.count(p.getText()));
                case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> add(1);
                case START_ARRAY -> {
                    while (nextElement(p)) {
                        definition(p);
                    }
                }
                case START_OBJECT -> {
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        add(counter.count(p.currentName()));
                        p.nextToken();
                        definition(p);
                    }
                }
                default -> { }
            }
        }

        private void add(long more) {
            tokens = tokens > Long.MAX_VALUE - more ? Long.MAX_VALUE : tokens + more;
        }
    }

    private static boolean nextElement(JsonParser p) throws IOException {
        JsonToken token = p.nextToken();
        return token != JsonToken.END_ARRAY && token != null;
    }
}
