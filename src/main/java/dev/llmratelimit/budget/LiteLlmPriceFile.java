package dev.llmratelimit.budget;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.llmratelimit.policy.PolicyException;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Reads the prices of LiteLLM's {@code model_prices_and_context_window.json}: an object of models,
 * each with USD per token in {@code input_cost_per_token}, {@code output_cost_per_token},
 * {@code cache_read_input_token_cost}, {@code cache_creation_input_token_cost},
 * {@code cache_creation_input_token_cost_above_1hr} and a
 * {@code max_output_tokens}. Every other member is skipped, as is the file's {@code sample_spec}
 * and any model without {@code input_cost_per_token} (image, audio and search entries).
 */
final class LiteLlmPriceFile {

    private static final BigDecimal PICOS_PER_USD = BigDecimal.valueOf(1_000_000_000_000L);
    private static final JsonFactory JSON = new JsonFactory();

    private LiteLlmPriceFile() {
    }

    static void read(String property, Path file, Map<String, PriceTableParser.PriceFields> into) {
        try (InputStream in = Files.newInputStream(file); JsonParser parser = JSON.createParser(in)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new PolicyException(property, file.toString(), "expected a JSON object of models");
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String model = parser.currentName();
                JsonToken value = parser.nextToken();
                if (value != JsonToken.START_OBJECT || model.equals("sample_spec")) {
                    parser.skipChildren();
                    continue;
                }
                PriceTableParser.PriceFields fields = model(parser, property + " (" + file + ", model " + model + ")");
                if (fields != null) {
                    into.put(model, fields);
                }
            }
        } catch (IOException e) {
            throw new PolicyException(property, file.toString(), "cannot read the price file: " + e.getMessage());
        }
    }

    /** The fields of one model entry; {@code null} for an entry without an input price. */
    private static PriceTableParser.PriceFields model(JsonParser parser, String origin) throws IOException {
        PriceTableParser.PriceFields fields = new PriceTableParser.PriceFields();
        boolean priced = false;
        boolean hasOutput = false;
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            JsonToken token = parser.nextToken();
            String field = switch (name) {
                case "input_cost_per_token" -> PriceTableParser.INPUT;
                case "output_cost_per_token" -> PriceTableParser.OUTPUT;
                case "cache_read_input_token_cost" -> PriceTableParser.CACHED_INPUT;
                case "cache_creation_input_token_cost" -> PriceTableParser.CACHE_WRITE;
                case "cache_creation_input_token_cost_above_1hr" -> PriceTableParser.CACHE_WRITE_1H;
                case "max_output_tokens" -> PriceTableParser.MAX_OUTPUT_TOKENS;
                default -> null;
            };
            if (field == null || token == JsonToken.VALUE_NULL) {
                parser.skipChildren();
                continue;
            }
            String where = origin + "." + name;
            if (!token.isScalarValue() || token.isBoolean()) {
                throw new PolicyException(where, token.asString(), "expected a number");
            }
            String text = parser.getText();
            if (field.equals(PriceTableParser.MAX_OUTPUT_TOKENS)) {
                fields.set(field, PriceTableParser.PriceFields.tokens(where, text), where);
            } else {
                fields.set(field, PriceTableParser.picosPerToken(where, text, PICOS_PER_USD), where);
                priced |= field.equals(PriceTableParser.INPUT);
                hasOutput |= field.equals(PriceTableParser.OUTPUT);
            }
        }
        if (priced && !hasOutput) {
            fields.set(PriceTableParser.OUTPUT, 0, origin);     // input-only entries (embeddings) cost nothing per output token
        }
        return priced ? fields : null;
    }
}
