package dev.llmratelimit.observe;

/**
 * Whether the OpenTelemetry API is visible from this library's class loader: only then may a class
 * that names its types be loaded ({@code dev.llmratelimit.observe.otel}).
 */
final class OpenTelemetryApi {

    static final boolean PRESENT = present("io.opentelemetry.api.OpenTelemetry")
            && present("io.opentelemetry.context.Context");

    private OpenTelemetryApi() {
    }

    private static boolean present(String name) {
        try {
            Class.forName(name, false, OpenTelemetryApi.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
