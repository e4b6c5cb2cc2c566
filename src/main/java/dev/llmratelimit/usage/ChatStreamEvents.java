package dev.llmratelimit.usage;

import java.util.Arrays;

/** Chat-completion and legacy-completion chunks: usage in the last chunk, then {@code data: [DONE]}. */
final class ChatStreamEvents implements StreamEvents {

    private static final byte[] DONE = {'[', 'D', 'O', 'N', 'E', ']'};

    private final CompletionText text;
    private Usage usage;

    ChatStreamEvents(CompletionText text) {
        this.text = text;
    }

    @Override
    public Kind read(byte[] data, int offset, int length) {
        if (Arrays.equals(data, offset, offset + length, DONE, 0, DONE.length)) {
            return Kind.END;
        }
        StreamChunk chunk = StreamChunk.parse(data, offset, length, text);
        if (chunk == null) {
            return Kind.OTHER;
        }
        if (chunk.usage() != null) {
            usage = chunk.usage();
        }
        return chunk.usageOnly() ? Kind.USAGE_ONLY : Kind.OTHER;
    }

    @Override
    public Usage usage() {
        return usage;
    }
}
