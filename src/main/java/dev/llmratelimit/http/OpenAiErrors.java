package dev.llmratelimit.http;

/** OpenAI-compatible error bodies: {@code {"error":{"message":..,"type":..,"param":null,"code":..}}}. */
public final class OpenAiErrors {

    public static final String INVALID_REQUEST = "invalid_request_error";
    public static final String THROTTLING = "throttling_error";
    /** OpenAI's own 429 code ({@link ErrorStyle#OPENAI}). */
    public static final String RATE_LIMIT_EXCEEDED = "rate_limit_exceeded";

    private OpenAiErrors() {
    }

    public static String body(String type, String code, String message) {
        return "{\"error\":{\"message\":" + quote(message) + ",\"type\":" + quote(type)
                + ",\"param\":null,\"code\":" + quote(code) + "}}";
    }

    static String quote(String text) {
        StringBuilder quoted = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                case '\n' -> quoted.append("\\n");
                case '\r' -> quoted.append("\\r");
                case '\t' -> quoted.append("\\t");
                default -> {
                    if (c < 0x20) {
                        quoted.append(String.format("\\u%04x", (int) c));
                    } else {
                        quoted.append(c);
                    }
                }
            }
        }
        return quoted.append('"').toString();
    }
}
