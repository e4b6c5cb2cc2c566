package dev.llmratelimit.config;

import dev.llmratelimit.engine.RateLimit;
import dev.llmratelimit.policy.LimitNames;
import dev.llmratelimit.policy.ModelPolicy;
import dev.llmratelimit.policy.RateLimitPolicy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/** The resolved policy as the check command prints it, and as one line for the log. */
final class PolicyTable {

    private static final String[] HEADER = {"model", "rpm", "tpm", "threshold", "window", "pool", "share", "pool rpm",
            "pool tpm", "more limits", "pool more limits"};
    /** Text columns align left, figures right. */
    private static final boolean[] LEFT = {true, false, false, false, false, true, false, false, false, true, true};
    /** The columns of every table; the last two only where a model has limits beyond rpm and tpm. */
    private static final int PLAIN_COLUMNS = 9;

    private PolicyTable() {
    }

    static String render(RuntimeConfiguration configuration) {
        RateLimitPolicy policy = configuration.policy();
        StringBuilder out = new StringBuilder()
                .append("store ").append(configuration.settings().store())
                .append(", window ").append(window(policy.window())).append(' ').append(name(policy.windowMode()))
                .append(", rate-limit-type ").append(name(policy.rateLimitType()))
                .append(", token-admission ").append(name(policy.tokenAdmission()))
                .append(", mode ").append(name(policy.mode()))
                .append(policy.rejectUnknownModels() ? ", unknown models refused" : ", unknown models pass")
                .append("\n\n");
        if (policy.models().isEmpty()) {
            return out.append("No model has a limit: every request passes untouched.\n").toString();
        }
        List<String[]> rows = new ArrayList<>();
        rows.add(HEADER);
        policy.models().keySet().stream().sorted().map(policy::model).forEach(model -> rows(model, policy.window(), rows));
        boolean more = rows.stream().skip(1).anyMatch(row -> !row[9].equals("-") && !row[9].isEmpty());
        return out.append(aligned(more ? rows : rows.stream().map(row -> Arrays.copyOf(row, PLAIN_COLUMNS)).toList())).toString();
    }

    /**
     * Whether the configuration leaves every request untouched: no model limit, no budget and no
     * per-caller limit (those are read by the caller resolver, so their property names are looked at).
     */
    static boolean limitsNothing(RuntimeConfiguration configuration, Map<String, String> properties) {
        return configuration.policy().models().isEmpty() && configuration.budgets().isEmpty()
                && properties.keySet().stream().noneMatch(name -> name.endsWith("-limit") || name.endsWith(".max-parallel-requests"));
    }

    /** One line for the log. Pool names are customer data, so only their number appears. */
    static String summary(RateLimitPolicy policy) {
        if (policy.models().isEmpty()) {
            return "no model has a limit";
        }
        StringJoiner models = new StringJoiner(", ", policy.models().size() + (policy.models().size() == 1 ? " model: " : " models: "), "");
        policy.models().keySet().stream().sorted().map(policy::model).forEach(model -> models.add(model.name()
                + " (rpm " + figure(model.rpm()) + ", tpm " + figure(model.tpm()) + ", "
                + (model.poolsEnforced() ? model.poolNames().size() + " pools" : "model-wide limits only") + ")"));
        return models.toString();
    }

    private static void rows(ModelPolicy model, Duration window, List<String[]> rows) {
        String[] first = {model.name(), figure(model.rpm()), figure(model.tpm()), percent(model.saturationThreshold()),
                window(window), "none", "-", "-", "-", moreLimits(model, 1.0), "-"};
        if (!model.poolsEnforced()) {
            rows.add(first);
            return;
        }
        List<String> pools = model.poolNames();
        for (int p = 0; p < pools.size(); p++) {
            String[] row = p == 0 ? first : blank();
            double share = model.shareOf(pools.get(p));
            row[5] = pools.get(p);
            row[6] = percent(share);
            row[7] = model.rpm() > 0 ? Long.toString(ModelPolicy.poolLimit(model.rpm(), share)) : "-";
            row[8] = model.tpm() > 0 ? Long.toString(ModelPolicy.poolLimit(model.tpm(), share)) : "-";
            row[10] = moreLimits(model, share);
            rows.add(row);
        }
    }

    /**
     * The model's limits beyond {@code rpm} and {@code tpm} (by window, the configured one first, then
     * by dimension), each by its configuration name, as a
     * {@code share} of them ({@code 1.0}: the model's own): {@code itpm 30000, rpd 1000}; {@code -} when none.
     */
    private static String moreLimits(ModelPolicy model, double share) {
        StringJoiner more = new StringJoiner(", ");
        more.setEmptyValue("-");
        List<RateLimit> limits = model.limits().stream().sorted(Comparator.<RateLimit>comparingLong(RateLimit::windowMillis)
                .thenComparing(RateLimit::dimension)).toList();
        for (RateLimit limit : limits) {
            String name = LimitNames.nameOf(limit);
            if (!name.equals("rpm") && !name.equals("tpm")) {
                more.add(name + " " + (share == 1.0 ? limit.amount() : ModelPolicy.poolLimit(limit.amount(), share)));
            }
        }
        return more.toString();
    }

    /** A further pool of the same model: the model's own columns stay empty. */
    private static String[] blank() {
        String[] row = new String[HEADER.length];
        Arrays.fill(row, "");
        return row;
    }

    private static String aligned(List<String[]> rows) {
        int[] widths = new int[rows.get(0).length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.length; i++) {
                String padding = " ".repeat(widths[i] - row[i].length());
                line.append(i == 0 ? "" : "  ").append(LEFT[i] ? row[i] + padding : padding + row[i]);
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
        return out.toString();
    }

    private static String figure(long capacity) {
        return capacity > 0 ? Long.toString(capacity) : "-";
    }

    private static String percent(double fraction) {
        return String.format(Locale.ROOT, "%.1f%%", fraction * 100);
    }

    private static String window(Duration window) {
        long millis = window.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }

    private static String name(Enum<?> value) {
        return value.name().replace('_', '-').toLowerCase(Locale.ROOT);
    }
}
