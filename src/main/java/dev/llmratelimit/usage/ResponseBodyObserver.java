package dev.llmratelimit.usage;


import java.io.IOException;
import java.io.OutputStream;
import java.util.OptionalLong;

/**
 * Sees the response body on its way to the client and finds its usage. An observer that learns the
 * usage from a chunk reports it before it forwards that chunk, so the tokens are recorded before the
 * client can read the end of the response.
 */
public interface ResponseBodyObserver {

    /** Forwards (possibly all but a held-back part of) the bytes to the client. */
    void write(byte[] bytes, int offset, int length, OutputStream client) throws IOException;

    /** Forwards whatever is still held back: the application has finished writing. */
    default void finish(OutputStream client) throws IOException {
    }

    /** The usage found, or {@code null}. */
    Usage usage();

    /**
     * Whether the response carried a usage that cannot be read as counts (negative, fractional, a
     * string, neither figure given), as opposed to none at all.
     */
    default boolean hasUnusableUsage() {
        return false;
    }

    /**
     * The prompt tokens the response already reported before its final usage (a stream's
     * {@code message_start}, {@code response.created}), which beat any estimate when the response is
     * cut; empty when it reported none.
     */
    default OptionalLong reportedPromptTokens() {
        return OptionalLong.empty();
    }

    /** Whether this is a server-sent event stream (a cut stream is charged for what it streamed). */
    default boolean isStream() {
        return false;
    }

    /**
     * Tokens of the completion text streamed so far, for charging a stream that ended without usage
     * (once a usage came, a stream need not keep its text).
     */
    default long streamedCompletionTokens() {
        return 0;
    }

    /** Forwards bytes unparsed: for answers that carry no usage (non-2xx). */
    ResponseBodyObserver PASS_THROUGH = new ResponseBodyObserver() {
        @Override
        public void write(byte[] bytes, int offset, int length, OutputStream client) throws IOException {
            client.write(bytes, offset, length);
        }

        @Override
        public Usage usage() {
            return null;
        }
    };
}
