package dev.llmratelimit.identity;

import java.util.Collection;
import java.util.Map;

/**
 * Turns metadata and claim values into names. MicroProfile JWT hands out some claims as
 * {@code jakarta.json} values, whose {@code toString()} is their JSON text ({@code "prod"} with the
 * quotes); this reads that text without needing {@code jakarta.json} on the class path.
 */
final class ClaimValues {

    private ClaimValues() {
    }

    /**
     * A name from a claim or metadata value: a String trimmed, a JSON string unquoted, a JSON number
     * or boolean as written; {@code null} for a missing, blank or JSON null value, an object or an
     * array (not a name), or malformed JSON text.
     */
    static String text(Object value) {
        if (value == null || value instanceof Map<?, ?> || value instanceof Collection<?>) {
            return null;
        }
        String text = (value instanceof String string ? string : String.valueOf(value)).trim();
        if (!(value instanceof String)) {
            if (text.equals("null")) {
                return null;
            }
            if (text.length() >= 2 && text.charAt(0) == '"' && text.charAt(text.length() - 1) == '"') {
                text = unquote(text);
                if (text == null) {
                    return null;
                }
                text = text.trim();
            }
        }
        return text.isEmpty() ? null : text;
    }

    /** The name under {@code key} in an object value (a {@code Map}, as {@code jakarta.json.JsonObject} is). */
    static String textIn(Object object, String key) {
        return object instanceof Map<?, ?> map ? text(map.get(key)) : null;
    }

    /** The content of a JSON string literal, escapes decoded; {@code null} if it is malformed. */
    private static String unquote(String literal) {
        int end = literal.length() - 1;
        if (literal.indexOf('\\') < 0) {
            return literal.indexOf('"', 1) == end ? literal.substring(1, end) : null;
        }
        StringBuilder out = new StringBuilder(end);
        for (int i = 1; i < end; i++) {
            char c = literal.charAt(i);
            if (c == '"') {
                return null;
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (++i >= end) {
                return null;
            }
            switch (literal.charAt(i)) {
                case '"' -> out.append('"');
                case '\\' -> out.append('\\');
                case '/' -> out.append('/');
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    if (i + 4 >= end) {
                        return null;
                    }
                    int code = 0;
                    for (int k = 1; k <= 4; k++) {
                        int digit = Character.digit(literal.charAt(i + k), 16);
                        if (digit < 0) {
                            return null;
                        }
                        code = code * 16 + digit;
                    }
                    out.append((char) code);
                    i += 4;
                }
                default -> {
                    return null;
                }
            }
        }
        return out.toString();
    }
}
