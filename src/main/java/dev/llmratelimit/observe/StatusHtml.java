package dev.llmratelimit.observe;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;

/**
 * The status page: one self-contained HTML document (inline style, no framework, nothing fetched
 * from elsewhere). It is readable without JavaScript, where a {@code <noscript>} meta refresh
 * reloads it; with JavaScript a few lines fetch the page again and swap its {@code <main>}, so the
 * figures move without a flash. Every figure carries a {@code data-field} for scripts and tests.
 */
public final class StatusHtml {

    private static final java.time.format.DateTimeFormatter READABLE =
            java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'", Locale.ROOT).withZone(java.time.ZoneOffset.UTC);

    private static final String STYLE = """
            body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
            main{max-width:1100px;margin:0 auto;padding:24px}
            h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:0 0 12px}
            .sub{color:#5b6475;margin:0 0 20px}
            .card{background:#fff;border:1px solid #dde1e8;border-radius:8px;padding:16px 20px;margin:0 0 16px}
            .badge{display:inline-block;border-radius:10px;padding:1px 9px;font-size:13px;font-weight:600;margin-left:8px}
            .generous,.ok{background:#e3f5e8;color:#17663a}.strict,.bad{background:#fde8e6;color:#a1261b}
            .unavailable{background:#eceef2;color:#5b6475}
            dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:0 0 12px}dt{color:#5b6475}dd{margin:0}
            table{border-collapse:collapse;width:100%}table.limits{margin:0 0 14px}th,td{text-align:left;padding:6px 10px;border-bottom:1px solid #eceef2}
            th{color:#5b6475;font-weight:600;font-size:13px}td.num{font-variant-numeric:tabular-nums}
            .bar{display:inline-block;width:120px;height:8px;background:#eceef2;border-radius:4px;vertical-align:middle;margin-left:8px;overflow:hidden}
            .bar>span{display:block;height:100%;background:#3d7be0}.bar>span.hot{background:#d9534f}
            tr.refusing td{background:#fdf0ee}tr.refusing td:first-child{box-shadow:inset 3px 0 #d9534f}
            figure.chart{margin:14px 0 0}svg.history{width:100%;max-width:600px;height:auto;display:block}
            figcaption{color:#5b6475;font-size:12px;margin-top:4px;max-width:600px}
            .key{display:inline-block;width:9px;height:9px;border-radius:2px;margin:0 3px 0 2px}.key.admitted{background:#3d7be0}.key.refused{background:#d9534f}
            footer{color:#5b6475;font-size:13px}
            """;

    private static final String SCRIPT = """
            (function () {
              var every = Number(document.body.getAttribute('data-refresh-ms'));
              function refresh() {
                fetch(location.href, {cache: 'no-store', credentials: 'same-origin'})
                  .then(function (r) { return r.ok ? r.text() : null; })
                  .then(function (text) {
                    if (!text) { return; }
                    var fresh = new DOMParser().parseFromString(text, 'text/html').querySelector('main');
                    if (fresh) { document.querySelector('main').replaceWith(fresh); }
                  })
                  .catch(function () { })
                  .then(function () { setTimeout(refresh, every); });
              }
              setTimeout(refresh, every);
            })();
            """;

    private StatusHtml() {
    }

    public static String render(StatusReport report, Duration refresh) {
        StringBuilder html = new StringBuilder(8192);
        html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
                .append("<title>llm-ratelimit status</title>")
                .append("<noscript><meta http-equiv=\"refresh\" content=\"")
                .append(Math.max(1, refresh.toSeconds())).append("\"></noscript>")
                .append("<style>").append(STYLE).append("</style></head>\n")
                .append("<body data-refresh-ms=\"").append(refresh.toMillis()).append("\"><main>\n");
        html.append("<h1>llm-ratelimit status</h1><p class=\"sub\">")
                .append(field("enforcement", report.enforcement())).append(" · ")
                .append(field("window-mode", report.windowMode())).append(" window of ")
                .append(field("window-length", seconds(report.windowMillis()))).append(" · read at ")
                .append(field("generated-at", instant(report.generatedAt()))).append("</p>\n");
        for (StatusReport.Model model : report.models()) {
            model(html, model, report.windowMillis());
        }
        store(html, report.store());
        budgets(html, report);
        configuration(html, report.configuration());
        html.append("<footer>JSON: this page's address with <code>.json</code>. Refreshes every ")
                .append(seconds(refresh.toMillis())).append(".</footer>\n</main><script>").append(SCRIPT)
                .append("</script></body></html>\n");
        return html.toString();
    }

    private static void model(StringBuilder html, StatusReport.Model model, long windowMillis) {
        html.append("<section class=\"card model\" data-model=\"").append(escape(model.name())).append("\"><h2>")
                .append(escape(model.name()));
        if (model.available()) {
            html.append("<span class=\"badge ").append(model.mode()).append("\" data-field=\"mode\">")
                    .append(model.mode()).append("</span>");
        } else {
            html.append("<span class=\"badge unavailable\" data-field=\"mode\">store unavailable</span>");
        }
        html.append("</h2><dl>")
                .append("<dt>saturation</dt><dd><span data-field=\"saturation\">").append(percent(model.saturation()))
                .append("</span>").append(bar(model.saturation(), model.saturation() >= model.threshold()))
                .append(" threshold <span data-field=\"threshold\">").append(percent(model.threshold())).append("</span></dd>")
                .append("<dt>fairness</dt><dd data-field=\"fairness\">").append(model.fairness()).append("</dd>")
                .append("<dt>requests</dt><dd data-field=\"requests\">").append(usage(model.requests(), model.rpm())).append("</dd>")
                .append("<dt>tokens</dt><dd data-field=\"tokens\">").append(usage(model.tokens(), model.tpm())).append("</dd>")
                .append("<dt>window left</dt><dd data-field=\"window-left\">")
                .append(model.windowLeftMillis() < 0 ? "unknown"
                        : model.windowLeftMillis() == 0 ? "no live window" : seconds(model.windowLeftMillis()))
                .append("</dd>")
                .append("<dt>refused, last ").append(seconds(windowMillis)).append("</dt><dd data-field=\"refused-recently\">")
                .append(refusals(model.refusedRecently())).append("</dd>")
                .append("</dl>\n");
        LimitsTable.append(html, model);
        html.append("<table><thead><tr><th>pool</th><th>share</th><th>use of its limit</th><th>requests / limit</th>")
                .append("<th>tokens / limit</th></tr></thead><tbody>");
        boolean strict = "strict".equals(model.mode());
        double shares = 0;
        for (int index = 0; index < model.pools().size(); index++) {
            StatusReport.Pool pool = model.pools().get(index);
            shares += pool.share();
            double use = LimitsTable.poolUse(model, index);
            boolean refusing = strict && use >= 1;
            html.append("<tr data-pool=\"").append(escape(pool.name())).append("\"").append(refusing ? " class=\"refusing\"" : "")
                    .append("><td data-field=\"pool\">").append(escape(pool.name()))
                    .append(refusing ? "<span class=\"badge strict\" data-field=\"pool-refusing\">refusing</span>" : "")
                    .append(pool.shareNow() >= 0 && pool.active() ? "<span class=\"badge\" data-field=\"pool-active\">active</span>" : "")
                    .append("</td><td class=\"num\" data-field=\"share\">")
                    .append(model.poolsEnforced() ? percent(pool.share()) : "tracked only")
                    .append(pool.shareNow() >= 0 ? "<span class=\"sub\" data-field=\"share-now\"> now " + percent(pool.shareNow())
                            + "</span>" : "").append("</td>")
                    .append("<td class=\"num\" data-field=\"pool-use\">").append(use < 0 ? "-" : percent(use) + bar(use, use >= 1))
                    .append("</td><td class=\"num\" data-field=\"pool-requests\">").append(usage(pool.requests(), pool.requestLimit()))
                    .append("</td><td class=\"num\" data-field=\"pool-tokens\">").append(usage(pool.tokens(), pool.tokenLimit()))
                    .append("</td></tr>");
        }
        html.append("</tbody></table>\n");
        if (model.poolsEnforced() && shares > 1.0005) {
            html.append("<p class=\"sub\" data-field=\"shares-note\">Shares add up to ").append(percent(shares))
                    .append(": the reservations are shares of the model among themselves, and the default pool (callers")
                    .append(" without a priority) has its own share beside them. In strict mode each pool is held to its")
                    .append(" own share; the model's own limit still caps them all together.</p>\n");
        }
        HistoryChart.append(html, model);
        html.append("</section>\n");
    }

    private static String refusals(Map<String, Long> refused) {
        if (refused.isEmpty()) {
            return "none";
        }
        StringBuilder text = new StringBuilder();
        refused.forEach((limit, count) -> text.append(text.length() == 0 ? "" : ", ").append(count).append(" by ")
                .append(escape(limit.replace('_', ' '))));
        return text.toString();
    }

    private static void store(StringBuilder html, StatusReport.Store store) {
        html.append("<section class=\"card\" id=\"store\"><h2>Store: <span data-field=\"store-kind\">")
                .append(escape(store.kind())).append("</span><span class=\"badge ").append(store.healthy() ? "ok" : "bad")
                .append("\" data-field=\"store-health\">").append(store.healthy() ? "healthy" : "circuit open")
                .append("</span></h2><dl>");
        for (Map.Entry<String, String> circuit : store.circuits().entrySet()) {
            html.append("<dt>circuit ").append(escape(circuit.getKey())).append("</dt><dd data-field=\"circuit\">")
                    .append(circuit.getValue()).append("</dd>");
        }
        for (Map.Entry<String, Long> failures : store.failures().entrySet()) {
            html.append("<dt>failed ").append(failures.getKey()).append("</dt><dd class=\"num\" data-field=\"failures-")
                    .append(failures.getKey()).append("\">").append(failures.getValue()).append("</dd>");
        }
        html.append("<dt>last failure</dt><dd data-field=\"last-failure\">")
                .append(store.lastFailure() == null ? "none"
                        : instant(store.lastFailure()) + " (" + store.lastFailedOperation() + ")")
                .append("</dd>");
        if (store.localDecisions() != null) {
            html.append("<dt>decided on the local share</dt><dd class=\"num\" data-field=\"local-decisions\">")
                    .append(store.localDecisions()).append("</dd>");
        }
        html.append("</dl></section>\n");
    }

    private static void budgets(StringBuilder html, StatusReport report) {
        html.append("<section class=\"card\" id=\"budgets\"><h2>Budgets</h2>");
        if (report.budgets().isEmpty()) {
            html.append("<p data-field=\"budgets\">No budget configured.</p></section>\n");
            return;
        }
        html.append("<table><thead><tr><th>scope</th><th>name</th><th>model</th><th>used</th><th>spent</th>")
                .append("<th>reserved</th><th>budget</th><th>left</th><th>period</th><th>resets in</th></tr></thead><tbody>");
        for (BudgetStatus budget : report.budgets()) {
            double used = budget.usedShare();
            boolean exhausted = budget.limitMicros() >= 0 && budget.leftMicros() == 0;
            html.append("<tr data-budget=\"").append(escape(budget.scope() + " " + budget.name()
                            + (budget.model() == null ? "" : " " + budget.model()))).append("\"")
                    .append(exhausted ? " class=\"refusing\"" : "").append("><td data-field=\"budget-scope\">")
                    .append(escape(budget.scope())).append("</td><td data-field=\"budget-name\">")
                    .append(escape(budget.name())).append("</td><td data-field=\"budget-model\">")
                    .append(budget.model() == null ? "all" : escape(budget.model())).append("</td><td class=\"num\">")
                    .append(percent(used)).append(bar(used, used >= 1)).append("</td><td class=\"num\" data-field=\"budget-spent\">")
                    .append(money(budget.spentMicros())).append("</td><td class=\"num\" data-field=\"budget-reserved\">")
                    .append(money(budget.reservedMicros())).append("</td><td class=\"num\" data-field=\"budget-limit\">")
                    .append(budget.limitMicros() >= 0 ? money(budget.limitMicros()) : "none")
                    .append(budget.softMicros() >= 0 ? " (soft " + money(budget.softMicros()) + ")" : "")
                    .append("</td><td class=\"num\" data-field=\"budget-left\">").append(money(budget.leftMicros()))
                    .append("</td><td data-field=\"budget-period\">").append(instant(budget.periodStart())).append(" to ")
                    .append(instant(budget.periodEnd())).append("</td><td data-field=\"budget-resets-in\">")
                    .append(duration(Duration.between(report.generatedAt(), budget.periodEnd()).toMillis()))
                    .append("</td></tr>");
        }
        html.append("</tbody></table><p class=\"sub\">Budgets of named keys, users and teams; spent is settled,")
                .append(" reserved is held for calls still running (their worst case). A budget refuses a call whose worst")
                .append(" case does not fit in what is left.</p></section>\n");
    }

    private static void configuration(StringBuilder html, ConfigurationStatus configuration) {
        html.append("<section class=\"card\" id=\"configuration\"><h2>Configuration</h2><dl>")
                .append("<dt>origin</dt><dd data-field=\"origin\">").append(escape(configuration.origin())).append("</dd>")
                .append("<dt>fingerprint</dt><dd data-field=\"fingerprint\">").append(configuration.fingerprint()).append("</dd>")
                .append("<dt>loaded</dt><dd data-field=\"loaded-at\">").append(instant(configuration.loadedAt())).append("</dd>")
                .append("<dt>last reload</dt><dd data-field=\"last-reload\">");
        ConfigurationStatus.Reload reload = configuration.lastReload();
        if (reload == null) {
            html.append("none");
        } else {
            html.append(instant(reload.at())).append(reload.applied() ? " applied" : " rejected: ")
                    .append(reload.applied() ? "" : escape(String.valueOf(reload.message())));
        }
        html.append("</dd></dl></section>\n");
    }

    private static String field(String name, String value) {
        return "<span data-field=\"" + name + "\">" + escape(value) + "</span>";
    }

    static String usage(long used, long limit) {
        if (used < 0 && limit < 0) {
            return "not limited";
        }
        String count = used < 0 ? "?" : Long.toString(used);
        return limit < 0 ? count : count + " / " + limit;
    }

    static String bar(double fraction, boolean hot) {
        double width = Math.max(0, Math.min(1, fraction)) * 100;
        return "<span class=\"bar\"><span" + (hot ? " class=\"hot\"" : "") + " style=\"width:"
                + String.format(Locale.ROOT, "%.1f", width) + "%\"></span></span>";
    }

    static String percent(double fraction) {
        return fraction < 0 ? "unknown" : String.format(Locale.ROOT, "%.1f %%", fraction * 100);
    }

    private static String seconds(long millis) {
        return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
    }

    private static String money(long micros) {
        return micros < 0 ? "unknown" : String.format(Locale.ROOT, "$%d.%06d", micros / 1_000_000, micros % 1_000_000);
    }

    /** {@code 2026-12-04 18:06:13 UTC}: to the second, in UTC, as people read it. */
    static String instant(Instant instant) {
        return instant == null ? "none" : READABLE.format(instant);
    }

    /** {@code 42 s}, {@code 4 min 12 s}, {@code 3 h 12 min}, {@code 26 d 5 h}. */
    static String duration(long millis) {
        long seconds = Math.max(0, millis) / 1000;
        if (seconds < 60) {
            return seconds + " s";
        }
        if (seconds < 3600) {
            return seconds / 60 + " min " + seconds % 60 + " s";
        }
        if (seconds < 86_400) {
            return seconds / 3600 + " h " + seconds % 3600 / 60 + " min";
        }
        return seconds / 86_400 + " d " + seconds % 86_400 / 3600 + " h";
    }

    static String escape(String text) {
        StringBuilder escaped = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '<' -> escaped.append("&lt;");
                case '>' -> escaped.append("&gt;");
                case '&' -> escaped.append("&amp;");
                case '"' -> escaped.append("&quot;");
                case '\'' -> escaped.append("&#39;");
                default -> escaped.append(c);
            }
        }
        return escaped.toString();
    }
}
