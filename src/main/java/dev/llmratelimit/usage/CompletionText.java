package dev.llmratelimit.usage;

/**
 * The completion text of a stream, counted in tokens as it grows: only the last
 * {@value #PIECE_CHARS} characters or so are held, cut where {@link TextPieces} cuts.
 */
final class CompletionText {

    static final int PIECE_CHARS = 16 * 1024;

    private final TokenCounter counter;
    private final StringBuilder pending = new StringBuilder();
    private long countedTokens;

    CompletionText(TokenCounter counter) {
        this.counter = counter;
    }

    void append(String text) {
        pending.append(text);
        while (pending.length() >= PIECE_CHARS) {
            int cut = TextPieces.cut(pending, 0, pending.length());
            countedTokens += counter.count(pending.substring(0, cut));
            pending.delete(0, cut);
        }
    }

    long tokens() {
        return countedTokens + counter.count(pending.toString());
    }
}
