package dev.llmratelimit.policy;

import java.util.Locale;

/** Parses sizes written as {@code 4MiB}, {@code 512KiB}, {@code 1MB} or a plain number of bytes. */
public final class ByteSizes {

    private ByteSizes() {
    }

    public static long parse(String property, String text) {
        String value = text.trim().toLowerCase(Locale.ROOT);
        long multiplier = 1;
        String[][] units = {{"gib", "1073741824"}, {"mib", "1048576"}, {"kib", "1024"},
                {"gb", "1000000000"}, {"mb", "1000000"}, {"kb", "1000"}, {"b", "1"}};
        for (String[] unit : units) {
            if (value.endsWith(unit[0])) {
                multiplier = Long.parseLong(unit[1]);
                value = value.substring(0, value.length() - unit[0].length()).trim();
                break;
            }
        }
        try {
            long size = Long.parseLong(value) * multiplier;
            if (size <= 0) {
                throw new PolicyException(property, text, "must be larger than zero");
            }
            return size;
        } catch (NumberFormatException e) {
            throw new PolicyException(property, text, "expected a size such as 4MiB, 512KiB or 1000000");
        }
    }
}
