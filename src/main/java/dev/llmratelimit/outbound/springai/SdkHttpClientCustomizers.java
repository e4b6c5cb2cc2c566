package dev.llmratelimit.outbound.springai;

import dev.llmratelimit.outbound.OutboundLimiter;
import dev.llmratelimit.outbound.okhttp.OutboundOkHttpInterceptor;
import okhttp3.Interceptor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Map;

/**
 * Spring AI 2's OpenAI and Anthropic models call through the providers' official SDKs on OkHttp, whose
 * clients Spring AI builds with every {@code OpenAiHttpClientBuilderCustomizer} (and
 * {@code AnthropicHttpClientBuilderCustomizer}) bean: this registers one of each that Spring AI has, adding
 * {@link OutboundOkHttpInterceptor}. The library is compiled against Spring AI 1.1, which has neither type,
 * so each bean is a proxy of the interface found at run time, and the builder's
 * {@code interceptor(okhttp3.Interceptor)} is called by name.
 */
final class SdkHttpClientCustomizers implements ImportBeanDefinitionRegistrar {

    /** Each customizer interface of Spring AI 2, by the name of the bean that implements it. */
    static final Map<String, String> CUSTOMIZERS = Map.of(
            "llmRateLimitOpenAiHttpClientCustomizer", "org.springframework.ai.openai.http.okhttp.OpenAiHttpClientBuilderCustomizer",
            "llmRateLimitAnthropicHttpClientCustomizer", "org.springframework.ai.anthropic.http.okhttp.AnthropicHttpClientBuilderCustomizer");

    @Override
    public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
        ClassLoader loader = SdkHttpClientCustomizers.class.getClassLoader();
        BeanFactory beans = (BeanFactory) registry;
        CUSTOMIZERS.forEach((bean, name) -> {
            if (ClassUtils.isPresent(name, loader)) {
                @SuppressWarnings("unchecked")
                Class<Object> type = (Class<Object>) ClassUtils.resolveClassName(name, loader);
                registry.registerBeanDefinition(bean, new RootBeanDefinition(type,
                        () -> customizer(type, new OutboundOkHttpInterceptor(beans.getBean(OutboundLimiter.class)))));
            }
        });
    }

    private static Object customizer(Class<?> type, Interceptor interceptor) {
        InvocationHandler handler = (proxy, method, arguments) -> switch (method.getName()) {
            case "customize" -> addTo(arguments[0], interceptor);
            case "equals" -> proxy == arguments[0];
            case "hashCode" -> System.identityHashCode(proxy);
            case "toString" -> "the outbound limiter's OkHttp interceptor";
            default -> throw new UnsupportedOperationException(method.toString());
        };
        return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[]{type}, handler);
    }

    /** {@code builder.interceptor(interceptor)} on Spring AI's {@code SpringAi...HttpClient.Builder}. */
    private static Object addTo(Object builder, Interceptor interceptor) throws ReflectiveOperationException {
        Method add = builder.getClass().getMethod("interceptor", Interceptor.class);
        add.invoke(builder, interceptor);
        return null;
    }
}
