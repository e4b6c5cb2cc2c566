package dev.llmratelimit.interceptor;

import dev.llmratelimit.testsupport.ClassPaths;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.net.URLClassLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The interceptor loads where the application has CDI but neither JAX-RS nor the servlet API (a
 * batch job, a message consumer): only the two gated helpers and the JAX-RS package name them.
 */
class WithoutJaxRsOrServletTest {

    private static final String PACKAGE = "dev.llmratelimit.interceptor.";

    @Test
    void theInterceptorAndItsHelpersLinkWithoutEitherApi() throws Exception {
        try (URLClassLoader loader = ClassPaths.without("jakarta.ws.rs-api", "resteasy", "servlet-api", "tomcat")) {
            assertThatThrownBy(() -> loader.loadClass("jakarta.ws.rs.core.Response")).isInstanceOf(ClassNotFoundException.class);
            assertThatThrownBy(() -> loader.loadClass("jakarta.servlet.http.HttpServletRequest")).isInstanceOf(ClassNotFoundException.class);

            for (String name : new String[] {"RateLimitInterceptor", "RateLimitedCalls", "AdmittedCall", "ChatArguments", "ReturnedUsage",
                    "CallerPrincipals", "OptionalApis", "UsageRecordingStream", "RateLimitRefusalException", "RateLimitExceededException"}) {
                Class<?> type = Class.forName(PACKAGE + name, true, loader);
                type.getDeclaredMethods();
                type.getDeclaredFields();
            }
            Class<?> interceptor = loader.loadClass(PACKAGE + "RateLimitInterceptor");
            assertThat(staticFlag(interceptor, "SERVLET_API")).isFalse();
            assertThat(staticFlag(loader.loadClass(PACKAGE + "RateLimitedCalls"), "JAX_RS_API")).isFalse();
            assertThatThrownBy(() -> Class.forName(PACKAGE + "jaxrs.RateLimitExceptionMapper", true, loader))
                    .isInstanceOf(NoClassDefFoundError.class);
        }
    }

    private static boolean staticFlag(Class<?> type, String name) throws ReflectiveOperationException {
        Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field.getBoolean(null);
    }
}
