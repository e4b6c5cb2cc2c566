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

/**
 * Spring AI 2's OpenAI models call through the official OpenAI SDK on OkHttp, built by Spring AI with
 * every {@code OpenAiHttpClientBuilderCustomizer} bean: this registers one that adds
 * {@link OutboundOkHttpInterceptor}. The library is compiled against Spring AI 1.1, which has no such
 * type, so the bean is a proxy of the interface found at run time, and the builder's
 * {@code interceptor(okhttp3.Interceptor)} is called by name.
 */
final class OpenAiSdkClientCustomizer implements ImportBeanDefinitionRegistrar {

    static final String CUSTOMIZER = "org.springframework.ai.openai.http.okhttp.OpenAiHttpClientBuilderCustomizer";
    static final String BEAN = "llmRateLimitOpenAiHttpClientCustomizer";

    @Override
    public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
        @SuppressWarnings("unchecked")
        Class<Object> type = (Class<Object>) ClassUtils.resolveClassName(CUSTOMIZER, OpenAiSdkClientCustomizer.class.getClassLoader());
        BeanFactory beans = (BeanFactory) registry;
        registry.registerBeanDefinition(BEAN, new RootBeanDefinition(type,
                () -> customizer(type, new OutboundOkHttpInterceptor(beans.getBean(OutboundLimiter.class)))));
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

    /** {@code builder.interceptor(interceptor)} on Spring AI's {@code SpringAiOpenAiHttpClient.Builder}. */
    private static Object addTo(Object builder, Interceptor interceptor) throws ReflectiveOperationException {
        Method add = builder.getClass().getMethod("interceptor", Interceptor.class);
        add.invoke(builder, interceptor);
        return null;
    }
}
