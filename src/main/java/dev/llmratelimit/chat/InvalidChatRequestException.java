package dev.llmratelimit.chat;

/**
 * A chat-completion request body the filter refuses with 400. The message is meant for the client
 * (an OpenAI-style {@code invalid_request_error}) and never quotes the body.
 */
public final class InvalidChatRequestException extends Exception {

    private final String param;

    InvalidChatRequestException(String message, String param) {
        // No stack trace: hostile clients can make these as often as they like.
        super(message, null, false, false);
        this.param = param;
    }

    /** The request field at fault ({@code "model"}), or null when the body as a whole is. */
    public String param() {
        return param;
    }
}
