package dev.llmratelimit.config;

import dev.llmratelimit.policy.LimitNames;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.policy.PropertyNames;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Every {@code llm.ratelimit.*} name the library reads, as patterns ({@code *} stands for one name
 * the operator chooses: a model, a priority, a principal). A name that matches none is a typo or a
 * setting of another version: start-up warns about it and {@code check} refuses it, naming the
 * closest known property. A new property is added here, beside its documentation.
 */
public final class KnownProperties {

    /** A model's limits per window: its short names and the general form. */
    private static final String MODEL_LIMITS = String.join(",", LimitNames.SHORT_NAMES) + "," + LimitNames.LIMITS + ".*.*";
    private static final String CALLER_LIMITS = LimitNames.SHORT_NAMES.stream().map(name -> name + LimitNames.CALLER_SUFFIX)
            .collect(Collectors.joining(",")) + "," + LimitNames.LIMITS + ".*.*";
    private static final String SCOPE_SETTINGS = "{priority,team,user," + CALLER_LIMITS + ",max-parallel-requests,budget,soft-budget,budgets.*}";
    private static final String LIMITS_AND_BUDGETS = "{" + CALLER_LIMITS + ",max-parallel-requests,budget,soft-budget,budgets.*}";

    private static final List<String> PATTERNS = expand(List.of(
            "config-file", "reload-interval", "enabled", "filter.enabled", "interceptor.enabled",
            "window", "window-mode", "rate-limit-type", "token-admission", "mode", "reject-unknown-models",
            "saturation-threshold", "fairness", "default-priority", "reservation.*", "expected-output-tokens", "expected-output-min-tokens",
            "models.*.{" + MODEL_LIMITS + ",saturation-threshold,fairness,reservation.*,expected-output-tokens,fallbacks,fallbacks.*,max-wait,max-wait.*}",
            "priority-order", "max-wait", "max-wait.*", "max-waiters", "max-waiters-per-caller", "max-waiting-bytes", "wait-poll-interval",
            "paths", "path-shapes.*", "error-style", "inject-stream-usage", "max-body-size",
            "store", "on-store-failure", "on-internal-error", "stop-grace-period", "store-backoff", "store-failure-threshold", "store-probe-interval",
            "redis.{address,config-file,key-prefix,username,password,database,timeout,connect-timeout,retry-attempts}",
            "caller-resolver", "parallel-lease",
            "jwt.{priority-claim,user-claim,team-claim,metadata-claim,user-metadata-claim,team-metadata-claim,team-priority-claim}",
            "principals.*." + SCOPE_SETTINGS, "users.*." + SCOPE_SETTINGS, "teams.*." + SCOPE_SETTINGS,
            "defaults.{key,user,team}." + LIMITS_AND_BUDGETS,
            "budget.{store,period,anchor,zone,admission,max-output-tokens,unpriced}",
            "budget.jdbc.{datasource,url,user,password,pool-size,table-prefix,timeout}",
            "prices.file", "prices.*.{input,output,cached-input,cache-write,cache-write-1h,max-output-tokens}",
            "metrics.enabled", "status.{path,public,refresh,role}",
            "outbound.*.{base-url,rpm,tpm,itpm,otpm,headroom,burst,max-wait,lease,expected-output-tokens,store}",
            "outbound.*.models.*.{rpm,tpm,itpm,otpm}"));

    private KnownProperties() {
    }

    /** One message per unknown {@code llm.ratelimit.*} name, in name order, each naming the closest known property. */
    static List<String> unknown(Map<String, String> properties) {
        List<String> messages = new ArrayList<>();
        for (String name : new TreeSet<>(properties.keySet())) {
            if (name.startsWith(PolicyParser.PREFIX) && !isKnown(name)) {
                messages.add("Unknown property " + name + ": did you mean " + closest(name) + "?");
            }
        }
        return messages;
    }

    /** Every known name after the prefix, {@code *} for each part the operator chooses, e.g. {@code models.*.tpm}. */
    public static List<String> patterns() {
        return PATTERNS;
    }

    /** The known names that have no part the operator chooses, e.g. {@code llm.ratelimit.on-internal-error}. */
    public static List<String> fixedNames() {
        return PATTERNS.stream().filter(pattern -> !pattern.contains("*")).map(pattern -> PolicyParser.PREFIX + pattern).toList();
    }

    public static boolean isKnown(String name) {
        List<String> segments = PropertyNames.segments(name.substring(PolicyParser.PREFIX.length()));
        return PATTERNS.stream().anyMatch(pattern -> matches(PropertyNames.segments(pattern), segments));
    }

    /** The known property nearest to the name by edit distance, its free names filled from the name where they line up. */
    static String closest(String name) {
        List<String> segments = PropertyNames.segments(name.substring(PolicyParser.PREFIX.length()));
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String pattern : PATTERNS) {
            String candidate = PolicyParser.PREFIX + filled(PropertyNames.segments(pattern), segments);
            int distance = EditDistance.between(name, candidate);
            if (distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
            }
        }
        return best;
    }

    private static boolean matches(List<String> pattern, List<String> segments) {
        if (pattern.size() != segments.size()) {
            return false;
        }
        for (int i = 0; i < pattern.size(); i++) {
            String expected = pattern.get(i);
            if (expected.equals("*") ? segments.get(i).isEmpty() : !expected.equals(segments.get(i))) {
                return false;
            }
        }
        return true;
    }

    private static String filled(List<String> pattern, List<String> segments) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < pattern.size(); i++) {
            String segment = pattern.get(i);
            if (segment.equals("*")) {
                segment = i < segments.size() ? PropertyNames.quote(segments.get(i)) : "<name>";
            }
            out.add(segment);
        }
        return String.join(".", out);
    }

    /** {@code a.{b,c.*}} becomes {@code a.b} and {@code a.c.*}. */
    private static List<String> expand(List<String> patterns) {
        List<String> out = new ArrayList<>();
        for (String pattern : patterns) {
            int open = pattern.indexOf('{');
            if (open < 0) {
                out.add(pattern);
                continue;
            }
            int close = pattern.indexOf('}', open);
            for (String choice : pattern.substring(open + 1, close).split(",")) {
                out.addAll(expand(List.of(pattern.substring(0, open) + choice + pattern.substring(close + 1))));
            }
        }
        return List.copyOf(out);
    }
}
