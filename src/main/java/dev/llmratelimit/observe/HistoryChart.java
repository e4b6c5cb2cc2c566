package dev.llmratelimit.observe;

import java.util.List;
import java.util.Locale;

/**
 * A model's last 30 minutes on this instance as a small inline SVG: per 30-second bucket the
 * requests admitted (blue) and refused (red) as stacked bars against the busiest bucket, and the
 * highest saturation a decision saw as a line against the threshold (dashed). No script, no
 * library: the page stays one self-contained document.
 */
final class HistoryChart {

    private static final int WIDTH = 600;
    private static final int HEIGHT = 110;
    private static final int TOP = 6;
    private static final int PLOT = HEIGHT - TOP - 16;

    private HistoryChart() {
    }

    static void append(StringBuilder html, StatusReport.Model model) {
        List<RecentActivity.Point> points = model.history();
        long busiest = 1;
        long admitted = 0;
        long refused = 0;
        for (RecentActivity.Point point : points) {
            busiest = Math.max(busiest, point.admitted() + point.refused());
            admitted += point.admitted();
            refused += point.refused();
        }
        double step = (double) WIDTH / points.size();
        StringBuilder svg = new StringBuilder(4096);
        svg.append("<svg class=\"history\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(HEIGHT)
                .append("\" role=\"img\" aria-label=\"last 30 minutes of ").append(StatusHtml.escape(model.name()))
                .append("\" data-field=\"history\">")
                .append("<rect x=\"0\" y=\"").append(TOP).append("\" width=\"").append(WIDTH).append("\" height=\"").append(PLOT)
                .append("\" fill=\"#f6f7f9\"/>");
        StringBuilder line = new StringBuilder();
        StringBuilder dots = new StringBuilder();
        for (int i = 0; i < points.size(); i++) {
            RecentActivity.Point point = points.get(i);
            double x = i * step;
            double admittedHeight = (double) point.admitted() / busiest * PLOT;
            double refusedHeight = (double) point.refused() / busiest * PLOT;
            double base = TOP + PLOT;
            if (point.admitted() > 0) {
                rect(svg, x, base - admittedHeight, step, admittedHeight, "#3d7be0", point.admitted() + " admitted");
            }
            if (point.refused() > 0) {
                rect(svg, x, base - admittedHeight - refusedHeight, step, refusedHeight, "#d9534f", point.refused() + " refused");
            }
            if (point.saturation() >= 0) {
                double y = TOP + PLOT - Math.min(1, point.saturation()) * PLOT;
                line.append(line.length() == 0 ? "M" : " L").append(number(x + step / 2)).append(' ').append(number(y));
                dots.append("<circle cx=\"").append(number(x + step / 2)).append("\" cy=\"").append(number(y))
                        .append("\" r=\"2\" fill=\"#1d2330\"><title>saturation ").append(StatusHtml.percent(point.saturation()))
                        .append("</title></circle>");
            }
        }
        double threshold = TOP + PLOT - Math.min(1, model.threshold()) * PLOT;
        svg.append("<line x1=\"0\" x2=\"").append(WIDTH).append("\" y1=\"").append(number(threshold)).append("\" y2=\"")
                .append(number(threshold)).append("\" stroke=\"#a1261b\" stroke-dasharray=\"4 3\" stroke-width=\"1\"/>");
        if (line.length() > 0) {
            svg.append("<path d=\"").append(line).append("\" fill=\"none\" stroke=\"#1d2330\" stroke-width=\"1.5\"/>").append(dots);
        }
        svg.append("<text x=\"0\" y=\"").append(HEIGHT - 2).append("\" font-size=\"11\" fill=\"#5b6475\">30 min ago</text>")
                .append("<text x=\"").append(WIDTH).append("\" y=\"").append(HEIGHT - 2)
                .append("\" font-size=\"11\" fill=\"#5b6475\" text-anchor=\"end\">now</text></svg>");
        html.append("<figure class=\"chart\">").append(svg).append("<figcaption>Last 30 minutes on this instance, per 30 s:")
                .append(" <span class=\"key admitted\"></span>admitted (<span data-field=\"history-admitted\">").append(admitted)
                .append("</span>), <span class=\"key refused\"></span>refused (<span data-field=\"history-refused\">")
                .append(refused).append("</span>), bars against the busiest ").append(busiest)
                .append("; the line is the highest saturation a decision saw (0 to 100 %), the dashed line the threshold.")
                .append(" With several instances each page shows only its own decisions.</figcaption></figure>\n");
    }

    private static void rect(StringBuilder svg, double x, double y, double width, double height, String fill, String title) {
        svg.append("<rect x=\"").append(number(x)).append("\" y=\"").append(number(y)).append("\" width=\"")
                .append(number(Math.max(1, width - 1))).append("\" height=\"").append(number(height)).append("\" fill=\"")
                .append(fill).append("\"><title>").append(title).append("</title></rect>");
    }

    private static String number(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }
}
