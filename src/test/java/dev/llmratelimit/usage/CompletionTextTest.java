package dev.llmratelimit.usage;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CompletionTextTest {

    private static final TokenCounter COUNTER = TokenCounter.forModel("gpt-4o");

    @Test
    void emptyTextHasNoTokens() {
        assertThat(new CompletionText(COUNTER).tokens()).isZero();
    }

    @Test
    void cutsBeforeTheLastSpaceOfTheSecondHalf() {
        String first = "word ".repeat(CompletionText.PIECE_CHARS / 5) + "end";
        String rest = " tail";
        CompletionText text = new CompletionText(COUNTER);
        text.append(first + rest);
        assertThat(text.tokens()).isEqualTo(COUNTER.count(first) + COUNTER.count(rest));
    }

    @Test
    void withoutSpacesCutsInTheMiddleButNeverInsideASurrogatePair() {
        String emoji = "😀";
        // "a" + 9000 pairs: 18001 chars, the middle (9000) is a low surrogate, so the cut is at 8999
        String all = "a" + emoji.repeat(9000);
        CompletionText text = new CompletionText(COUNTER);
        text.append(all);
        assertThat(text.tokens()).isEqualTo(COUNTER.count("a" + emoji.repeat(4499)) + COUNTER.count(emoji.repeat(4501)));
    }
}
