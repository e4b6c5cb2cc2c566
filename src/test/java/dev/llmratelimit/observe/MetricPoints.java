package dev.llmratelimit.observe;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.sdk.metrics.data.DoublePointData;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;

import java.util.Collection;
import java.util.Map;
import java.util.stream.Collectors;

/** One collection of an {@link InMemoryMetricReader}, looked up by metric name and attributes. */
final class MetricPoints {

    private final Map<String, MetricData> byName;

    private MetricPoints(Collection<MetricData> metrics) {
        byName = metrics.stream().collect(Collectors.toMap(MetricData::getName, metric -> metric));
    }

    static MetricPoints collect(InMemoryMetricReader reader) {
        return new MetricPoints(reader.collectAllMetrics());
    }

    MetricData metric(String name) {
        MetricData metric = byName.get(name);
        if (metric == null) {
            throw new AssertionError("No metric " + name + " among " + byName.keySet());
        }
        return metric;
    }

    /** The value of a counter's or long gauge's point with exactly these attributes; 0 when there is none. */
    long longValue(String name, Attributes attributes) {
        MetricData metric = metric(name);
        Collection<LongPointData> points = metric.getType() == io.opentelemetry.sdk.metrics.data.MetricDataType.LONG_SUM
                ? metric.getLongSumData().getPoints() : metric.getLongGaugeData().getPoints();
        return points.stream().filter(point -> point.getAttributes().equals(attributes))
                .mapToLong(LongPointData::getValue).sum();
    }

    /** The sum over every point of a long counter. */
    long longTotal(String name) {
        return metric(name).getLongSumData().getPoints().stream().mapToLong(LongPointData::getValue).sum();
    }

    int pointCount(String name) {
        return metric(name).getData().getPoints().size();
    }

    double doubleGauge(String name, Attributes attributes) {
        return metric(name).getDoubleGaugeData().getPoints().stream()
                .filter(point -> point.getAttributes().equals(attributes))
                .mapToDouble(DoublePointData::getValue).findFirst()
                .orElseThrow(() -> new AssertionError("No point of " + name + " with " + attributes));
    }

    long histogramCount(String name, Attributes attributes) {
        return metric(name).getHistogramData().getPoints().stream()
                .filter(point -> point.getAttributes().equals(attributes))
                .mapToLong(HistogramPointData::getCount).sum();
    }

    /** Attributes from alternating keys and values; {@code "shadow"} takes a boolean. */
    static Attributes attributes(Object... keysAndValues) {
        AttributesBuilder builder = Attributes.builder();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            String key = (String) keysAndValues[i];
            Object value = keysAndValues[i + 1];
            if (value instanceof Boolean flag) {
                builder.put(key, flag);
            } else {
                builder.put(key, (String) value);
            }
        }
        return builder.build();
    }
}
