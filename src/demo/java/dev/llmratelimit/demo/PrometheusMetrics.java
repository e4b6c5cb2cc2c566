package dev.llmratelimit.demo;

import dev.llmratelimit.observe.Telemetry;
import dev.llmratelimit.observe.otel.OpenTelemetryTelemetry;
import io.opentelemetry.exporter.prometheus.PrometheusMetricReader;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;

/**
 * The demo's metrics: the OpenTelemetry SDK with its Prometheus reader (pull: each scrape collects
 * now), written in the Prometheus text format at {@code /metrics} by the demo's own Tomcat, so no
 * second port is opened.
 */
final class PrometheusMetrics implements AutoCloseable {

    private final PrometheusMetricReader reader = PrometheusMetricReader.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build())
            .build();

    Telemetry telemetry() {
        return OpenTelemetryTelemetry.of(sdk);
    }

    HttpServlet servlet() {
        PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
        return new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
                response.setContentType(writer.getContentType());
                writer.write(response.getOutputStream(), reader.collect());
            }
        };
    }

    @Override
    public void close() {
        sdk.close();
    }
}
