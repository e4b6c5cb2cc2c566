package dev.llmratelimit.spring;

import dev.llmratelimit.config.KnownProperties;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.policy.PropertyNames;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The library's name for a property written the way Spring lets users write it: the fixed parts in any
 * of Spring's relaxed forms ({@code maxWait}, {@code max_wait}, {@code MAX_WAIT} for {@code max-wait}), the
 * parts the operator chooses (a model, a principal) as written. Environment variables follow Spring's
 * rule for them: underscores separate the parts, a chosen part is one word, lower-cased.
 */
final class RelaxedNames {

    static final String VARIABLE_PREFIX = "LLM_RATELIMIT_";

    private static final List<List<String>> PATTERNS = KnownProperties.patterns().stream()
            .map(PropertyNames::segments).toList();

    private RelaxedNames() {
    }

    /**
     * The known name a written name stands for, e.g. {@code llm.ratelimit.models.GPT-4o.max-wait} for
     * {@code llm.ratelimit.models.GPT-4o.maxWait}; {@code null} when it matches no known name.
     *
     * @param name the name in the library's notation (a chosen part with a dot in quotes)
     */
    static String fromWritten(String name) {
        List<String> segments = PropertyNames.segments(name.substring(PolicyParser.PREFIX.length()));
        for (List<String> pattern : PATTERNS) {
            if (pattern.size() == segments.size() && sameNames(pattern, segments)) {
                List<String> chosen = new ArrayList<>();
                for (int i = 0; i < pattern.size(); i++) {
                    if (pattern.get(i).equals("*")) {
                        chosen.add(segments.get(i));
                    }
                }
                return filled(pattern, chosen);
            }
        }
        return null;
    }

    /**
     * The known name with a chosen part that an environment variable stands for, e.g.
     * {@code llm.ratelimit.models.gpt4o.max-wait} for {@code LLM_RATELIMIT_MODELS_GPT4O_MAX_WAIT};
     * {@code null} when it matches none (or a name without a chosen part: the environment finds those itself).
     */
    static String fromVariable(String variable) {
        if (!variable.startsWith(VARIABLE_PREFIX)) {
            return null;
        }
        List<String> words = List.of(variable.substring(VARIABLE_PREFIX.length()).toLowerCase(Locale.ROOT).split("_", -1));
        if (words.contains("")) {
            return null;
        }
        for (List<String> pattern : PATTERNS) {
            if (pattern.contains("*")) {
                List<String> chosen = new ArrayList<>();
                if (matchesWords(pattern, 0, words, 0, chosen)) {
                    return filled(pattern, chosen);
                }
            }
        }
        return null;
    }

    private static boolean sameNames(List<String> pattern, List<String> segments) {
        for (int i = 0; i < pattern.size(); i++) {
            String fixed = pattern.get(i);
            if (fixed.equals("*") ? segments.get(i).isEmpty() : !uniform(fixed).equals(uniform(segments.get(i)))) {
                return false;
            }
        }
        return true;
    }

    /** A chosen part takes one word, a fixed part the words that spell it ({@code max}, {@code wait} or {@code maxwait}). */
    private static boolean matchesWords(List<String> pattern, int at, List<String> words, int word, List<String> chosen) {
        if (at == pattern.size()) {
            return word == words.size();
        }
        if (word == words.size()) {
            return false;
        }
        if (pattern.get(at).equals("*")) {
            chosen.add(words.get(word));
            if (matchesWords(pattern, at + 1, words, word + 1, chosen)) {
                return true;
            }
            chosen.remove(chosen.size() - 1);
            return false;
        }
        String fixed = uniform(pattern.get(at));
        StringBuilder spelled = new StringBuilder();
        for (int end = word; end < words.size() && spelled.length() < fixed.length(); end++) {
            spelled.append(words.get(end));
            if (spelled.toString().equals(fixed) && matchesWords(pattern, at + 1, words, end + 1, chosen)) {
                return true;
            }
        }
        return false;
    }

    /** The pattern with its {@code *} parts replaced, in order, by the chosen names. */
    private static String filled(List<String> pattern, List<String> chosen) {
        List<String> out = new ArrayList<>(pattern.size());
        int next = 0;
        for (String part : pattern) {
            out.add(part.equals("*") ? PropertyNames.quote(chosen.get(next++)) : part);
        }
        return PolicyParser.PREFIX + String.join(".", out);
    }

    /** Spring's comparison of a name's parts: case and dashes or underscores do not count. */
    private static String uniform(String part) {
        return part.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
    }
}
