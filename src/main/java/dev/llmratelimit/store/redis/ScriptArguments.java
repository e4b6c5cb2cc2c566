package dev.llmratelimit.store.redis;

/**
 * The arguments of one {@code admit.lua} or {@code settle.lua} call, written as one JSON array and
 * sent as the script's only argument: the script decodes it in one C call ({@code cjson.decode}),
 * numbers already numbers. Per argument, Redisson's encoding and Redis's parsing of a separate
 * argument cost more than the whole decode, so a call of 40 figures is one argument.
 */
final class ScriptArguments {

    private final StringBuilder json = new StringBuilder(256).append('[');

    ScriptArguments add(long value) {
        separate().append(value);
        return this;
    }

    /** Java's shortest round-trip form, which Lua's number parsing reads back as the same double. */
    ScriptArguments add(double value) {
        separate().append(Double.toString(value));
        return this;
    }

    /** 1 or 0. */
    ScriptArguments add(boolean value) {
        return add(value ? 1L : 0L);
    }

    ScriptArguments add(String text) {
        StringBuilder out = separate().append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('"');
        return this;
    }

    /** Figures already written as JSON text (a {@link #fragment}), as the next ones. */
    ScriptArguments json(String fragment) {
        separate().append(fragment);
        return this;
    }

    /** The figures so far as JSON text without the array's brackets, to be added to other arguments. */
    String fragment() {
        return json.substring(1);
    }

    /** The script's arguments: the one JSON array. */
    Object[] toArray() {
        return new Object[] {json.append(']').toString()};
    }

    private StringBuilder separate() {
        if (json.length() > 1) {
            json.append(',');
        }
        return json;
    }
}
