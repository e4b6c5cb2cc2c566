package dev.llmratelimit.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * Puts one freshly written section of BENCHMARKS.md in place of the same section (the same {@code ## }
 * heading) of an existing file, and rebuilds the summary's list of targets from the sections, in their
 * order, as a whole run lists them.
 */
final class ReportMerge {

    private static final String TARGETS = "Targets:\n\n";

    private ReportMerge() {
    }

    /**
     * @param existing the whole BENCHMARKS.md
     * @param mode     the mode of the new section's run: it must be the existing file's
     * @param section  the new section as {@link Report#body()} wrote it, starting with its heading
     * @param note     a paragraph put under the heading, saying when the section was measured
     */
    static String replaceSection(String existing, String mode, String section, String note) {
        if (!existing.contains("\n- mode: " + mode + ",")) {
            throw new IllegalStateException("BENCHMARKS.md there is not from a " + mode + " run: refusing to put a "
                    + mode + " section in it");
        }
        String heading = section.strip().lines().findFirst().orElseThrow();
        int start = existing.indexOf("\n" + heading + "\n");
        if (start < 0) {
            throw new IllegalStateException("BENCHMARKS.md has no section \"" + heading + "\" to replace");
        }
        int end = existing.indexOf("\n## ", start + 1);
        end = end < 0 ? existing.length() : end;
        int afterHeading = section.indexOf(heading) + heading.length();
        String noted = section.substring(0, afterHeading) + "\n\n" + note + section.substring(afterHeading);
        String merged = existing.substring(0, start) + trimTrailingNewlines(noted) + "\n" + existing.substring(end);
        return withTargetsOfSections(merged);
    }

    private static String withTargetsOfSections(String text) {
        int list = text.indexOf(TARGETS);
        int sections = text.indexOf("\n\n## ", list);
        List<String> targets = new ArrayList<>();
        text.substring(sections).lines()
                .filter(line -> line.startsWith("- **met**: ") || line.startsWith("- **NOT met**: "))
                .forEach(targets::add);
        StringBuilder lines = new StringBuilder();
        targets.forEach(line -> lines.append(line).append('\n'));
        return text.substring(0, list + TARGETS.length()) + lines + text.substring(sections + 1);
    }

    private static String trimTrailingNewlines(String text) {
        int end = text.length();
        while (end > 0 && text.charAt(end - 1) == '\n') {
            end--;
        }
        return text.substring(0, end) + "\n";
    }
}
