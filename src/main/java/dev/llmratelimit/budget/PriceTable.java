package dev.llmratelimit.budget;

import java.util.Map;

/**
 * The price of every priced model, and what an unpriced model costs: nothing is ever free by
 * omission, so without {@code unpriced=charge:<price>} an unpriced model cannot be budgeted.
 *
 * @param unpriced the price charged for a model without one ({@code unpriced=charge:<price>}), or
 *                 {@code null} for {@code unpriced=refuse}
 */
public record PriceTable(Map<String, ModelPrice> prices, ModelPrice unpriced) {

    public static final PriceTable EMPTY = new PriceTable(Map.of(), null);

    public PriceTable {
        prices = Map.copyOf(prices);
    }

    /** The model's own price, or {@code null} when it has none. */
    public ModelPrice priceOf(String model) {
        return prices.get(model);
    }
}
