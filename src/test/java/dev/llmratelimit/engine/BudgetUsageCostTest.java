package dev.llmratelimit.engine;

import dev.llmratelimit.budget.ModelPrice;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The cost of a response's usage: every kind of prompt token at its own price. */
class BudgetUsageCostTest {

    /** Pico-dollars per token: input $1/1M, output $2/1M, cached $0.10/1M, cache writes $1.25/1M (5 min), $2/1M (1 h). */
    private static final ModelPrice PRICE = new ModelPrice(1_000_000, 2_000_000, 100_000, 1_250_000, 2_000_000, 0);

    @Test
    void cachedAndCacheCreationTokensArePricedApartFromTheRestOfThePrompt() {
        // 1,000 prompt tokens: 200 read from the cache, 400 written to it, 400 plain; 100 completion tokens
        Usage anthropic = new Usage(1000, 100, 200, 400);
        assertThat(BudgetExtension.cost(PRICE, anthropic)).isEqualTo(400 + 20 + 500 + 200);
        assertThat(BudgetExtension.cost(PRICE, new Usage(1000, 100, 200, 0))).isEqualTo(800 + 20 + 200);
    }

    @Test
    void writesToTheOneHourCacheArePricedAtTheirOwnRate() {
        // 1,000 prompt tokens: 400 written, 300 of them for an hour; 600 plain
        assertThat(BudgetExtension.cost(PRICE, new Usage(1000, 0, 0, 400, 300, true))).isEqualTo(600 + 125 + 600);
    }

    @Test
    void figuresThatDoNotAddUpAreBoundedByThePrompt() {
        // more cached and written tokens reported than prompt tokens: never a negative plain part
        assertThat(BudgetExtension.cost(PRICE, new Usage(100, 0, 80, 50))).isEqualTo(8 + 25);
    }
}
