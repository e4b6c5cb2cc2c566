package dev.llmratelimit.budget;

import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.policy.PropertyNames;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads {@code llm.ratelimit.prices.<model>.input|output|cached-input|cache-write|cache-write-1h|max-output-tokens}
 * (USD per million tokens) over the table of {@code llm.ratelimit.prices.file} (LiteLLM's
 * {@code model_prices_and_context_window.json} shape, USD per token): a property wins over the
 * file's figure for the same model and field. {@code cached-input} defaults to {@code input};
 * {@code cache-write} to 1.25 times {@code input} and {@code cache-write-1h} to twice {@code input}, the
 * ratios of Anthropic, the provider whose usage reports cache writes (OpenAI's reports none).
 */
public final class PriceTableParser {

    public static final String PRICES = PolicyParser.PREFIX + "prices.";
    public static final String FILE = PRICES + "file";
    public static final String UNPRICED = PolicyParser.PREFIX + "budget.unpriced";

    static final String INPUT = "input";
    static final String OUTPUT = "output";
    static final String CACHED_INPUT = "cached-input";
    static final String CACHE_WRITE = "cache-write";
    static final String CACHE_WRITE_1H = "cache-write-1h";
    static final String MAX_OUTPUT_TOKENS = "max-output-tokens";

    private static final BigDecimal PICOS_PER_MILLION_USD = BigDecimal.valueOf(1_000_000L);

    private PriceTableParser() {
    }

    /** @throws PolicyException naming the property (or the file and its entry) of an invalid price */
    public static PriceTable parse(Map<String, String> properties) {
        Map<String, PriceFields> models = new TreeMap<>();
        String file = properties.get(FILE);
        if (file != null && !file.isBlank()) {
            LiteLlmPriceFile.read(FILE, Path.of(file.trim()), models);
        }
        for (Map.Entry<String, String> entry : properties.entrySet()) {
            String property = entry.getKey();
            if (!property.startsWith(PRICES) || property.equals(FILE)) {
                continue;
            }
            List<String> segments = PropertyNames.segments(property.substring(PRICES.length()));
            if (segments.size() != 2 || segments.get(0).isEmpty()) {
                throw new PolicyException(property, entry.getValue(), "expected " + PRICES
                        + "<model>.input|output|cached-input|cache-write|cache-write-1h|max-output-tokens (quote a model name with a dot)");
            }
            models.computeIfAbsent(segments.get(0), m -> new PriceFields())
                    .setFromProperty(segments.get(1), property, entry.getValue());
        }
        Map<String, ModelPrice> prices = new HashMap<>();
        models.forEach((model, fields) -> prices.put(model, fields.build(PRICES + PropertyNames.quote(model))));
        return new PriceTable(prices, unpriced(properties.getOrDefault(UNPRICED, "refuse")));
    }

    private static ModelPrice unpriced(String text) {
        String value = text.trim();
        if (value.equals("refuse")) {
            return null;
        }
        if (!value.startsWith("charge:")) {
            throw new PolicyException(UNPRICED, text, "expected refuse or charge:<USD per 1M tokens>");
        }
        long price = picosPerToken(UNPRICED, value.substring("charge:".length()), PICOS_PER_MILLION_USD);
        return new ModelPrice(price, price, price, price, price, 0);
    }

    /** A price in USD per {@code unit} tokens as pico-dollars per token, rounded up (never cheaper than written). */
    static long picosPerToken(String property, String text, BigDecimal picosPerUsdUnit) {
        BigDecimal picos = Micros.decimal(property, text).multiply(picosPerUsdUnit);
        if (picos.compareTo(BigDecimal.valueOf(1_000_000_000_000L)) > 0) {
            throw new PolicyException(property, text, "more than USD 1 per token");
        }
        return picos.setScale(0, java.math.RoundingMode.CEILING).longValueExact();
    }

    /** The figures of one model as they are read, before defaults and validation. */
    static final class PriceFields {
        private final Map<String, Long> values = new HashMap<>();
        private final Map<String, String> origins = new HashMap<>();

        void set(String field, long value, String origin) {
            values.put(field, value);
            origins.put(field, origin);
        }

        void setFromProperty(String field, String property, String value) {
            switch (field) {
                case INPUT, OUTPUT, CACHED_INPUT, CACHE_WRITE, CACHE_WRITE_1H ->
                        set(field, picosPerToken(property, value, PICOS_PER_MILLION_USD), property);
                case MAX_OUTPUT_TOKENS -> set(field, tokens(property, value), property);
                default -> throw new PolicyException(property, value,
                        "unknown price setting (expected input, output, cached-input, cache-write, cache-write-1h"
                                + " or max-output-tokens)");
            }
        }

        ModelPrice build(String prefix) {
            Long input = values.get(INPUT);
            Long output = values.get(OUTPUT);
            if (input == null || output == null) {
                String present = origins.getOrDefault(input == null ? OUTPUT : INPUT,
                        origins.values().stream().findFirst().orElse(prefix));
                throw new PolicyException(present, "", "a priced model needs both " + prefix + ".input and "
                        + prefix + ".output (USD per 1M tokens; 0 for free)");
            }
            return new ModelPrice(input, output, values.getOrDefault(CACHED_INPUT, input),
                    values.getOrDefault(CACHE_WRITE, input + ceilQuarter(input)), values.getOrDefault(CACHE_WRITE_1H, 2 * input),
                    values.getOrDefault(MAX_OUTPUT_TOKENS, 0L));
        }

        /** A quarter, rounded up: prices are never cheaper than the ratio. */
        private static long ceilQuarter(long picos) {
            return (picos + 3) / 4;
        }

        static long tokens(String property, String value) {
            try {
                long tokens = Long.parseLong(value.trim());
                if (tokens >= 1) {
                    return tokens;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new PolicyException(property, value, "expected a whole number of tokens of at least 1");
        }
    }
}
