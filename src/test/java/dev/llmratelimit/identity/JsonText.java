package dev.llmratelimit.identity;

/**
 * Stands in for a {@code jakarta.json.JsonValue}: its {@code toString()} is JSON text, as
 * {@code JsonString} gives {@code "prod"} with the quotes and {@code JsonValue.NULL} gives {@code null}.
 */
record JsonText(String json) {

    @Override
    public String toString() {
        return json;
    }
}
