package dev.llmratelimit.usage;

/**
 * Where to cut long text for the tokenizer. BPE cost grows faster than the length of a piece without
 * spaces (jtokkit took 2 s for one 1 MiB word, about 0.3 s for the same in pieces of a few hundred
 * characters), and its memory with the piece, so long text is tokenized in pieces: cut before a space
 * where possible (where the GPT tokenizers start a new token anyway, so the count stays that of the
 * whole text), else in the middle, never inside a surrogate pair.
 */
final class TextPieces {

    private TextPieces() {
    }

    /** The end of the piece that starts at {@code start} in {@code text[start, end)}: in its second half. */
    static int cut(CharSequence text, int start, int end) {
        int middle = start + (end - start) / 2;
        for (int i = end - 1; i >= middle; i--) {
            if (text.charAt(i) == ' ') {
                return i;
            }
        }
        return Character.isLowSurrogate(text.charAt(middle)) ? middle - 1 : middle;
    }
}
