package dev.llmratelimit.budget;

import dev.llmratelimit.policy.PolicyException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PricesAndMoneyTest {

    private static final String P = "llm.ratelimit.prices.";

    @TempDir
    Path dir;

    @Test
    void propertyPricesAreUsdPerMillionTokensAndCostsRoundUpPerCharge() {
        PriceTable table = PriceTableParser.parse(Map.of(P + "gpt-4o.input", "2.50", P + "gpt-4o.output", "10.00",
                P + "gpt-4o.cached-input", "1.25", P + "gpt-4o.max-output-tokens", "16384"));
        ModelPrice price = table.priceOf("gpt-4o");
        assertThat(price).isEqualTo(new ModelPrice(2_500_000, 10_000_000, 1_250_000, 3_125_000, 5_000_000, 16384));
        // 1000 uncached x 2.5 + 200 cached x 1.25 + 300 completion x 10 = 2500 + 250 + 3000 micro-dollars
        assertThat(price.costMicros(1000, 200, 0, 300)).isEqualTo(5750);
        // one prompt token costs 2.5 micro-dollars: charged 3, never 2
        assertThat(price.costMicros(1, 0, 0, 0)).isEqualTo(3);
        assertThat(price.costMicros(0, 0, 0, 0)).isZero();
        assertThat(price.costMicros(Long.MAX_VALUE, 0, 0, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void cacheWritesDefaultToAnthropicsRatiosAndEitherMayBeSet() {
        PriceTable table = PriceTableParser.parse(Map.of(P + "claude.input", "3", P + "claude.output", "15",
                P + "set.input", "3", P + "set.output", "15", P + "set.cache-write", "4", P + "set.cache-write-1h", "5"));
        assertThat(table.priceOf("claude")).isEqualTo(new ModelPrice(3_000_000, 15_000_000, 3_000_000, 3_750_000, 6_000_000, 0));
        assertThat(table.priceOf("set")).isEqualTo(new ModelPrice(3_000_000, 15_000_000, 3_000_000, 4_000_000, 5_000_000, 0));
        // 1,000 tokens written for 5 minutes and 1,000 for an hour: 3,750 + 6,000 micro-dollars
        assertThat(table.priceOf("claude").costMicros(0, 0, 1000, 1000, 0)).isEqualTo(9_750);
    }

    @Test
    void aModelPricedZeroIsFreeAndAnUnpricedOneHasNoPrice() {
        PriceTable table = PriceTableParser.parse(Map.of(P + "free.input", "0", P + "free.output", "0"));
        assertThat(table.priceOf("free").costMicros(100_000, 0, 0, 100_000)).isZero();
        assertThat(table.priceOf("other")).isNull();
        assertThat(table.unpriced()).isNull();
    }

    @Test
    void unpricedChargeIsOnePriceForEveryToken() {
        PriceTable table = PriceTableParser.parse(Map.of("llm.ratelimit.budget.unpriced", "charge:30"));
        assertThat(table.unpriced().costMicros(100, 0, 0, 100)).isEqualTo(6000);
        assertThatThrownBy(() -> PriceTableParser.parse(Map.of("llm.ratelimit.budget.unpriced", "free")))
                .isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.budget.unpriced=free: expected refuse or charge:<USD per 1M tokens>");
    }

    @Test
    void invalidPricesFailNamingTheProperty() {
        assertThatThrownBy(() -> PriceTableParser.parse(Map.of(P + "m.input", "-1", P + "m.output", "1")))
                .hasMessage("Invalid configuration llm.ratelimit.prices.m.input=-1: must not be negative");
        assertThatThrownBy(() -> PriceTableParser.parse(Map.of(P + "m.input", "NaN", P + "m.output", "1")))
                .hasMessage("Invalid configuration llm.ratelimit.prices.m.input=NaN: expected a decimal amount in USD such as 2.50");
        assertThatThrownBy(() -> PriceTableParser.parse(Map.of(P + "m.input", "abc", P + "m.output", "1")))
                .hasMessageStartingWith("Invalid configuration llm.ratelimit.prices.m.input=abc:");
        assertThatThrownBy(() -> PriceTableParser.parse(Map.of(P + "m.output", "1")))
                .hasMessageContaining("a priced model needs both llm.ratelimit.prices.m.input and llm.ratelimit.prices.m.output");
        assertThatThrownBy(() -> PriceTableParser.parse(Map.of(P + "\"gpt-4.1\".inptu", "1")))
                .hasMessageStartingWith("Invalid configuration llm.ratelimit.prices.\"gpt-4.1\".inptu=1: unknown price setting");
    }

    @Test
    void liteLlmFileIsReadAndPropertiesWinFieldByField() throws IOException {
        Path file = dir.resolve("model_prices_and_context_window.json");
        Files.writeString(file, """
                {
                  "sample_spec": {"max_output_tokens": "max output tokens, if the provider specifies it", "input_cost_per_token": 0.0},
                  "gpt-4o": {"max_tokens": 16384, "max_output_tokens": 16384, "input_cost_per_token": 2.5e-06,
                             "output_cost_per_token": 1e-05, "cache_read_input_token_cost": 1.25e-06, "litellm_provider": "openai",
                             "supports_vision": true},
                  "gpt-4.1-mini": {"input_cost_per_token": 4e-07, "output_cost_per_token": 1.6e-06},
                  "text-embedding-3-small": {"input_cost_per_token": 2e-08},
                  "dall-e-3": {"output_cost_per_pixel": 0.0}
                }
                """);
        Map<String, String> properties = new HashMap<>();
        properties.put(P + "file", file.toString());
        properties.put(P + "gpt-4o.output", "12");
        PriceTable table = PriceTableParser.parse(properties);
        assertThat(table.priceOf("gpt-4o")).isEqualTo(new ModelPrice(2_500_000, 12_000_000, 1_250_000, 3_125_000, 5_000_000, 16384));
        assertThat(table.priceOf("gpt-4.1-mini")).isEqualTo(new ModelPrice(400_000, 1_600_000, 400_000, 500_000, 800_000, 0));
        assertThat(table.priceOf("text-embedding-3-small")).isEqualTo(new ModelPrice(20_000, 0, 20_000, 25_000, 40_000, 0));
        assertThat(table.priceOf("dall-e-3")).isNull();
        assertThat(table.priceOf("sample_spec")).isNull();
    }

    @Test
    void invalidFilePricesFailNamingFileModelAndField() throws IOException {
        Path file = dir.resolve("prices.json");
        Files.writeString(file, "{\"m\": {\"input_cost_per_token\": -2e-06, \"output_cost_per_token\": 1e-06}}");
        assertThatThrownBy(() -> PriceTableParser.parse(Map.of(P + "file", file.toString())))
                .hasMessage("Invalid configuration llm.ratelimit.prices.file (" + file + ", model m).input_cost_per_token=-2e-06:"
                        + " must not be negative");
        assertThatThrownBy(() -> PriceTableParser.parse(Map.of(P + "file", dir.resolve("missing.json").toString())))
                .hasMessageStartingWith("Invalid configuration llm.ratelimit.prices.file=" + dir.resolve("missing.json"));
    }

    @Test
    void moneyIsExactMicroDollarsShownWithFourDecimalsOrMore() {
        assertThat(Micros.parseUsd("b", "10")).isEqualTo(10_000_000);
        assertThat(Micros.parseUsd("b", "25.000000")).isEqualTo(25_000_000);
        assertThat(Micros.parseUsd("b", "0.000001")).isEqualTo(1);
        assertThatThrownBy(() -> Micros.parseUsd("b", "0.0000001"))
                .hasMessage("Invalid configuration b=0.0000001: finer than a micro-dollar (at most 6 decimals)");
        assertThat(Micros.usd(10_002_100)).isEqualTo("10.0021");
        assertThat(Micros.usd(10_000_000)).isEqualTo("10.0000");
        assertThat(Micros.usd(10_000_001)).isEqualTo("10.000001");
        assertThat(Micros.usd(0)).isEqualTo("0.0000");
        // the float sum LiteLLM users see as 25.000000000000004 is exact here
        long spent = 0;
        for (int i = 0; i < 250; i++) {
            spent += Micros.parseUsd("b", "0.1");
        }
        assertThat(Micros.usd(spent)).isEqualTo("25.0000");
    }
}
