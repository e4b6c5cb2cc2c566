package dev.llmratelimit.observe;

import dev.llmratelimit.policy.Durations;

import java.util.List;

/**
 * Every limit of a model as a table on the status page: one row per dimension and window (the
 * configured window first), with what the model counted against it, the time left in that window
 * and each pool's part (its count against its share in strict mode).
 */
final class LimitsTable {

    private LimitsTable() {
    }

    static void append(StringBuilder html, StatusReport.Model model) {
        List<StatusReport.Limit> limits = model.limits();
        if (limits.isEmpty()) {
            return;
        }
        html.append("<table class=\"limits\"><thead><tr><th>limit</th><th>used / limit</th><th>window left</th>");
        for (StatusReport.PoolLimit pool : limits.get(0).pools()) {
            html.append("<th>pool ").append(StatusHtml.escape(pool.name())).append("</th>");
        }
        html.append("</tr></thead><tbody>");
        for (StatusReport.Limit limit : limits) {
            double use = use(limit.used(), limit.limit());
            html.append("<tr data-limit=\"").append(limit.dimension()).append('/').append(limit.windowMillis())
                    .append("\"><td data-field=\"limit-name\">").append(limit.dimension()).append(" per ")
                    .append(Durations.format(limit.windowMillis())).append("</td><td class=\"num\" data-field=\"limit-used\">")
                    .append(StatusHtml.usage(limit.used(), limit.limit()))
                    .append(use < 0 ? "" : StatusHtml.bar(use, use >= 1)).append("</td><td data-field=\"limit-window-left\">")
                    .append(limit.windowLeftMillis() < 0 ? "unknown"
                            : limit.windowLeftMillis() == 0 ? "no live window" : StatusHtml.duration(limit.windowLeftMillis()))
                    .append("</td>");
            for (StatusReport.PoolLimit pool : limit.pools()) {
                html.append("<td class=\"num\" data-field=\"limit-pool\" data-pool=\"").append(StatusHtml.escape(pool.name()))
                        .append("\">").append(StatusHtml.usage(pool.used(), pool.limit())).append("</td>");
            }
            html.append("</tr>");
        }
        html.append("</tbody></table>\n");
    }

    /**
     * The highest use a pool makes of its share of any limit (a share of 0 counts as used up); -1
     * where it is held to no share or its counts are unknown.
     */
    static double poolUse(StatusReport.Model model, int poolIndex) {
        double use = -1;
        for (StatusReport.Limit limit : model.limits()) {
            StatusReport.PoolLimit pool = limit.pools().get(poolIndex);
            use = Math.max(use, use(pool.used(), pool.limit()));
        }
        return use;
    }

    /** {@code used / limit}; -1 where either is unknown or not limited; a limit of 0 is used up. */
    private static double use(long used, long limit) {
        if (used < 0 || limit < 0) {
            return -1;
        }
        return limit == 0 ? 1 : (double) used / limit;
    }
}
