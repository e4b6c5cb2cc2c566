package dev.llmratelimit.demo;

import dev.llmratelimit.observe.Telemetry;
import dev.llmratelimit.observe.otel.OpenTelemetryTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.exporter.prometheus.PrometheusMetricReader;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.resources.Resource;
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
    /** {@code service.name}: {@code OTEL_SERVICE_NAME} or {@code -Dotel.service.name}, else {@value #SERVICE_NAME}. */
    static final String SERVICE_NAME = "llm-ratelimit-demo";

    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setMeterProvider(SdkMeterProvider.builder().setResource(resource()).registerMetricReader(reader).build())
            .build();

    private static Resource resource() {
        String name = System.getProperty("otel.service.name", System.getenv().getOrDefault("OTEL_SERVICE_NAME", SERVICE_NAME));
        return Resource.getDefault().merge(Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), name)));
    }

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
