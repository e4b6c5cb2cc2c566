package dev.llmratelimit.observe;

import dev.llmratelimit.testsupport.ClassPaths;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.net.URLClassLoader;
import java.util.Map;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** An application without the OpenTelemetry API: the runtime builds, decides and shows its status, measuring nothing. */
class WithoutOpenTelemetryTest {

    @Test
    void theRuntimeRunsWithoutTheOpenTelemetryApi() throws Exception {
        try (URLClassLoader loader = ClassPaths.without("opentelemetry")) {
            assertThatThrownBy(() -> loader.loadClass("io.opentelemetry.api.OpenTelemetry"))
                    .isInstanceOf(ClassNotFoundException.class);
            Class<?> runtimeType = loader.loadClass("dev.llmratelimit.config.RateLimitRuntime");
            Method create = runtimeType.getMethod("create", Map.class,
                    loader.loadClass("dev.llmratelimit.identity.CallerResolver"));
            Object runtime = create.invoke(null, properties("models.m.rpm=1", "status.path=/status"), null);
            try {
                Object limiter = runtimeType.getMethod("limiter").invoke(runtime);
                Class<?> requestType = loader.loadClass("dev.llmratelimit.engine.AdmissionRequest");
                Object request = requestType.getMethod("of", String.class, String.class, String.class)
                        .invoke(null, "m", null, null);
                Method admit = limiter.getClass().getMethod("admit", requestType);
                assertThat(String.valueOf(outcome(admit.invoke(limiter, request)))).isEqualTo("ADMITTED");
                assertThat(String.valueOf(outcome(admit.invoke(limiter, request)))).isEqualTo("REFUSED");

                Object metrics = runtimeType.getMethod("metrics").invoke(runtime);
                Object none = loader.loadClass("dev.llmratelimit.observe.Metrics").getField("NONE").get(null);
                assertThat(metrics).isSameAs(none);

                Object status = runtimeType.getMethod("status").invoke(runtime);
                Object report = status.getClass().getMethod("read").invoke(status);
                assertThat(report.toString()).contains("name=m, rpm=1", "requests=1");
            } finally {
                runtimeType.getMethod("close").invoke(runtime);
            }
        }
    }

    private static Object outcome(Object admission) throws ReflectiveOperationException {
        return admission.getClass().getMethod("outcome").invoke(admission);
    }
}
