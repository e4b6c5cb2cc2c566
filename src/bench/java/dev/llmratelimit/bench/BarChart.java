package dev.llmratelimit.bench;

import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** A grouped bar chart drawn with Java2D into a PNG (headless). */
final class BarChart {

    private static final Color[] PALETTE = {
            new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c), new Color(0xd62728), new Color(0x9467bd)};
    private static final int WIDTH = 900;
    private static final int HEIGHT = 450;
    private static final int LEFT = 80;
    private static final int RIGHT = 20;
    private static final int TOP = 50;
    private static final int BOTTOM = 80;

    private final String title;
    private final String valueLabel;
    private final List<String> groups;
    private final List<String> series;
    /** values[group][series] */
    private final double[][] values;

    BarChart(String title, String valueLabel, List<String> groups, List<String> series, double[][] values) {
        this.title = title;
        this.valueLabel = valueLabel;
        this.groups = groups;
        this.series = series;
        this.values = values;
    }

    void write(Path png) throws IOException {
        BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, WIDTH, HEIGHT);
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.drawString(title, LEFT, 30);

        int plotWidth = WIDTH - LEFT - RIGHT;
        int plotHeight = HEIGHT - TOP - BOTTOM;
        double max = niceCeiling(maxValue());
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        FontMetrics metrics = g.getFontMetrics();
        for (int tick = 0; tick <= 5; tick++) {
            double value = max * tick / 5;
            int y = TOP + plotHeight - (int) Math.round(plotHeight * tick / 5.0);
            g.setColor(new Color(0xdddddd));
            g.drawLine(LEFT, y, LEFT + plotWidth, y);
            g.setColor(Color.DARK_GRAY);
            String label = Report.fixed(value, value < 10 && value != 0 ? 1 : 0);
            g.drawString(label, LEFT - 8 - metrics.stringWidth(label), y + 4);
        }
        drawVertical(g, valueLabel, 20, TOP + plotHeight / 2);

        int groupWidth = plotWidth / groups.size();
        int barWidth = Math.max(8, (int) (groupWidth * 0.8 / series.size()));
        for (int group = 0; group < groups.size(); group++) {
            int groupLeft = LEFT + group * groupWidth + (groupWidth - barWidth * series.size()) / 2;
            for (int s = 0; s < series.size(); s++) {
                double value = values[group][s];
                int height = (int) Math.round(plotHeight * value / max);
                int x = groupLeft + s * barWidth;
                g.setColor(PALETTE[s % PALETTE.length]);
                g.fillRect(x, TOP + plotHeight - height, barWidth - 2, height);
                g.setColor(Color.BLACK);
                String label = Report.fixed(value, value < 10 ? 1 : 0);
                g.drawString(label, x + (barWidth - 2 - metrics.stringWidth(label)) / 2, TOP + plotHeight - height - 4);
            }
            g.setColor(Color.BLACK);
            String name = groups.get(group);
            g.drawString(name, LEFT + group * groupWidth + (groupWidth - metrics.stringWidth(name)) / 2,
                    TOP + plotHeight + 18);
        }
        g.setStroke(new BasicStroke(1.5f));
        g.drawLine(LEFT, TOP + plotHeight, LEFT + plotWidth, TOP + plotHeight);
        g.drawLine(LEFT, TOP, LEFT, TOP + plotHeight);

        int legendY = TOP + plotHeight + 45;
        int legendX = LEFT;
        for (int s = 0; s < series.size(); s++) {
            String name = series.get(s);
            if (legendX + 20 + metrics.stringWidth(name) > WIDTH - RIGHT) {
                legendX = LEFT;
                legendY += 20;
            }
            g.setColor(PALETTE[s % PALETTE.length]);
            g.fillRect(legendX, legendY - 10, 12, 12);
            g.setColor(Color.BLACK);
            g.drawString(name, legendX + 18, legendY);
            legendX += 18 + metrics.stringWidth(name) + 24;
        }
        g.dispose();
        ImageIO.write(image, "png", png.toFile());
    }

    private double maxValue() {
        double max = 0;
        for (double[] group : values) {
            for (double value : group) {
                max = Math.max(max, value);
            }
        }
        return max;
    }

    /** The next 1, 2 or 5 times a power of ten at or above the value, with room for the bar labels. */
    private static double niceCeiling(double value) {
        double target = value * 1.1;
        if (target <= 0) {
            return 1;
        }
        double power = Math.pow(10, Math.floor(Math.log10(target)));
        for (double step : new double[] {1, 2, 5, 10}) {
            if (step * power >= target) {
                return step * power;
            }
        }
        return 10 * power;
    }

    private static void drawVertical(Graphics2D g, String text, int x, int centerY) {
        Graphics2D rotated = (Graphics2D) g.create();
        rotated.rotate(-Math.PI / 2);
        rotated.setColor(Color.DARK_GRAY);
        rotated.drawString(text, -centerY - rotated.getFontMetrics().stringWidth(text) / 2, x);
        rotated.dispose();
    }
}
