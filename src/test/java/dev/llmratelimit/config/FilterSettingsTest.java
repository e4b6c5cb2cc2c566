package dev.llmratelimit.config;

import dev.llmratelimit.policy.PolicyException;
import com.fasterxml.jackson.core.JsonFactory;
import com.knuddels.jtokkit.Encodings;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Map;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The filter's and the interceptor's switches (each its own, {@code llm.ratelimit.enabled} for both),
 * and Redisson as an optional dependency: the library runs without it unless {@code store=redis}.
 */
class FilterSettingsTest {

    @Test
    void bothAreOnByDefault() {
        FilterSettings settings = FilterSettings.parse(properties());

        assertThat(settings.filterEnabled()).isTrue();
        assertThat(settings.interceptorEnabled()).isTrue();
    }

    @Test
    void eachHasItsOwnSwitch() {
        FilterSettings noFilter = FilterSettings.parse(properties("filter.enabled=false"));
        FilterSettings noInterceptor = FilterSettings.parse(properties("interceptor.enabled=false"));

        assertThat(noFilter.filterEnabled()).isFalse();
        assertThat(noFilter.interceptorEnabled()).isTrue();
        assertThat(noInterceptor.filterEnabled()).isTrue();
        assertThat(noInterceptor.interceptorEnabled()).isFalse();
    }

    @Test
    void theCommonSwitchTurnsBothOffWhateverTheirOwnSay() {
        FilterSettings settings = FilterSettings.parse(properties("enabled=false", "filter.enabled=true",
                "interceptor.enabled=true"));

        assertThat(settings.filterEnabled()).isFalse();
        assertThat(settings.interceptorEnabled()).isFalse();
    }

    @Test
    void aSwitchThatIsNotABooleanIsRefused() {
        assertThatThrownBy(() -> FilterSettings.parse(properties("interceptor.enabled=no")))
                .isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.interceptor.enabled=no: expected true or false");
    }

    @Test
    void withoutRedissonTheMemoryStoreRunsAndRedisIsRefusedByName() throws Exception {
        try (URLClassLoader withoutRedisson = new URLClassLoader(new URL[] {location(RateLimitRuntime.class),
                location(JsonFactory.class), location(Encodings.class)}, ClassLoader.getPlatformClassLoader())) {
            Class<?> runtime = withoutRedisson.loadClass(RateLimitRuntime.class.getName());
            Method create = runtime.getMethod("create", Map.class,
                    withoutRedisson.loadClass("dev.llmratelimit.identity.CallerResolver"));
            assertThatThrownBy(() -> withoutRedisson.loadClass("org.redisson.api.RedissonClient"))
                    .isInstanceOf(ClassNotFoundException.class);

            Object memory = create.invoke(null, properties("models.gpt-4o.rpm=5"), null);
            runtime.getMethod("close").invoke(memory);
            assertThatThrownBy(() -> create.invoke(null, properties("store=redis"), null))
                    .isInstanceOf(InvocationTargetException.class)
                    .cause()
                    .hasMessage("Invalid configuration llm.ratelimit.store=redis: Redisson is not on the application's "
                            + "class path; add org.redisson:redisson (an optional dependency of llm-ratelimit-filter) "
                            + "to the application");
        }
    }

    private static URL location(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }
}
