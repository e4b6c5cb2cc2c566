package dev.llmratelimit.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Puts one freshly written section of BENCHMARKS.md in place of the same section (the same {@code ## }
 * heading) of an existing file, and rebuilds the summary's list of targets from the sections, in their
 * order, as a whole run lists them; a part that has a sentence of the summary's paragraph puts its new
 * one in place of the sentence that begins with the same words.
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
     * @param sentence the part's sentence of the summary ({@code null}: the part has none)
     */
    static String replaceSection(String existing, String mode, String section, String note, String sentence) {
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
        return withTargetsOfSections(sentence == null ? merged : withSummarySentence(merged, sentence));
    }

    /** The summary with {@code sentence} in place of the one that begins with its first three words. */
    private static String withSummarySentence(String text, String sentence) {
        String opening = String.join(" ", Arrays.asList(sentence.split(" ")).subList(0, 3));
        int start = summarySentence(text, opening);
        int end = text.indexOf(". ", start);
        int paragraphEnd = text.indexOf("\n\n", start);
        end = end < 0 || end > paragraphEnd ? paragraphEnd : end + 1;
        return text.substring(0, start) + sentence + text.substring(end);
    }

    /**
     * Where the summary's paragraph has the sentence beginning with {@code opening}: checked before a
     * part is measured, so a file whose summary was written otherwise costs no measurement.
     */
    static int summarySentence(String text, String opening) {
        int summary = text.indexOf("\n## Summary\n\n");
        int paragraph = summary + "\n## Summary\n\n".length();
        int paragraphEnd = summary < 0 ? -1 : text.indexOf("\n\n", paragraph);
        int start = summary < 0 ? -1 : text.indexOf(opening, paragraph);
        if (start < 0 || paragraphEnd < 0 || start > paragraphEnd) {
            throw new IllegalStateException("BENCHMARKS.md's summary paragraph has no sentence beginning \"" + opening
                    + "\": run the whole benchmark once to write it");
        }
        return start;
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
