package dev.llmratelimit.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The Markdown of BENCHMARKS.md, built section by section. */
final class Report {

    private final StringBuilder text = new StringBuilder();
    private final List<String> targets = new ArrayList<>();
    /** The part's sentence of the summary, when the part is measured alone; {@code null}: none. */
    private String summarySentence;

    Report heading(String title) {
        text.append("\n## ").append(title).append("\n\n");
        return this;
    }

    Report paragraph(String paragraph) {
        text.append(paragraph).append("\n\n");
        return this;
    }

    Report table(List<String> header, List<List<String>> rows) {
        text.append('|').append(String.join(" | ", header)).append("|\n|");
        header.forEach(h -> text.append("---|"));
        text.append('\n');
        for (List<String> row : rows) {
            text.append('|').append(String.join(" | ", row)).append("|\n");
        }
        text.append('\n');
        return this;
    }

    /** A target line in the section, also collected for the summary at the top. */
    Report target(String description, boolean met, String measured) {
        String line = "**" + (met ? "met" : "NOT met") + "**: " + description + " (measured: " + measured + ")";
        text.append("- ").append(line).append('\n');
        targets.add(line);
        return this;
    }

    Report endTargets() {
        text.append('\n');
        return this;
    }

    List<String> targets() {
        return targets;
    }

    Report summarySentence(String sentence) {
        summarySentence = sentence;
        return this;
    }

    String summarySentence() {
        return summarySentence;
    }

    String body() {
        return text.toString();
    }

    static String fixed(double value, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    static String ratio(double value) {
        return fixed(value, 2) + "x";
    }

    static String percent(double fraction) {
        return fixed(fraction * 100, 1) + " %";
    }
}
