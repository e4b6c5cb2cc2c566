package dev.llmratelimit.usage;

/**
 * What the events of one endpoint shape's server-sent event stream mean: where the usage is, which
 * event ends the stream, which text is completion. One instance per stream, used by one thread.
 */
interface StreamEvents {

    /** What one event is, as far as usage is concerned. */
    enum Kind {
        OTHER,
        /** The usage-only chunk that {@code include_usage} adds (chat and legacy completions). */
        USAGE_ONLY,
        /** The event that ends the stream: the usage is complete now ({@code [DONE]}, {@code response.completed}, {@code message_stop}). */
        END
    }

    /**
     * Reads the data of one event, appending the completion text it carries to the stream's text
     * (now, or once {@link #readHeld} asks for it). Data that is not well-formed JSON is
     * {@link Kind#OTHER} and changes nothing.
     */
    Kind read(byte[] data, int offset, int length);

    /** The usage the stream has reported so far, or null. */
    Usage usage();

    /**
     * Reads the events held unread so far (see {@link ChatStreamEvents}), so that the stream's text
     * is whole: before the text's tokens are counted.
     */
    default void readHeld() {
    }

    /** The prompt tokens an event reported before the final usage, or -1 when none did. */
    default long reportedPromptTokens() {
        return -1;
    }

    static StreamEvents of(EndpointShape shape, CompletionText text) {
        return switch (shape) {
            case CHAT, COMPLETIONS, EMBEDDINGS -> new ChatStreamEvents(text);
            case RESPONSES -> new ResponsesStreamEvents(text);
            case MESSAGES -> new MessagesStreamEvents(text);
        };
    }
}
