package dev.llmratelimit.policy;

import java.util.ArrayList;
import java.util.List;

/** Splits MicroProfile Config property names into segments; a quoted segment may contain dots. */
public final class PropertyNames {

    private PropertyNames() {
    }

    /** {@code models."gpt-4.1".tpm} becomes {@code [models, gpt-4.1, tpm]}. */
    public static List<String> segments(String name) {
        List<String> segments = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '"') {
                quoted = !quoted;
            } else if (c == '.' && !quoted) {
                segments.add(current.toString());
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        segments.add(current.toString());
        return segments;
    }

    /** Quotes a segment that holds a dot, the way it must be written in a property name. */
    public static String quote(String segment) {
        return segment.indexOf('.') >= 0 ? '"' + segment + '"' : segment;
    }
}
