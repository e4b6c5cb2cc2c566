package dev.llmratelimit.usage;

/**
 * The completion text of a stream, counted in tokens as it grows. Text is tokenized in pieces of
 * about {@value #PIECE_CHARS} characters, cut before a space where possible (where the tokenizers of
 * the GPT family start a new token anyway), so memory stays bounded and the count stays close to the
 * count of the whole text.
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
        if (pending.length() >= PIECE_CHARS) {
            int cut = cutPoint();
            countedTokens += counter.count(pending.substring(0, cut));
            pending.delete(0, cut);
        }
    }

    long tokens() {
        return countedTokens + counter.count(pending.toString());
    }

    /** The last space in the second half of the pending text, else its middle (never inside a surrogate pair). */
    private int cutPoint() {
        int half = pending.length() / 2;
        int space = pending.lastIndexOf(" ");
        if (space >= half) {
            return space;
        }
        return Character.isLowSurrogate(pending.charAt(half)) ? half - 1 : half;
    }
}
