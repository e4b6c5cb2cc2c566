package dev.llmratelimit.outbound.springai;

import dev.llmratelimit.outbound.OutboundLimiter;
import dev.llmratelimit.outbound.OutboundLimiters;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import dev.llmratelimit.spring.SpringProperties;
import org.springframework.core.env.Environment;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Where Spring AI is present and {@code llm.ratelimit.outbound.*} names a provider (application.yml or
 * any other property source), or the application defines an {@link OutboundLimiter} bean: one limiter bean
 * from those properties (and {@code llm.ratelimit.redis.*} for the redis store) unless the application has
 * its own, and every {@code RestClient.Builder} and {@code WebClient.Builder} bean, the ones Spring AI 1.1's
 * OpenAI and Anthropic models are built from, gets its interceptor or filter; Spring AI 2's OpenAI and
 * Anthropic models get the OkHttp interceptor through Spring AI's customizers of their SDK clients.
 * Calls to URLs no provider's {@code base-url} governs pass untouched.
 */
@AutoConfiguration
@ConditionalOnClass(name = "org.springframework.ai.chat.model.ChatModel")
@Conditional(OutboundLimiterCondition.class)
public class OutboundLimiterAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public OutboundLimiter outboundLimiter(Environment environment) {
        return OutboundLimiters.fromProperties(SpringProperties.all(environment));
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RestClient.class)
    static class RestClients {

        @Bean
        static BeanPostProcessor outboundRestClientBuilders(ObjectProvider<OutboundLimiter> limiter) {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String name) {
                    if (bean instanceof RestClient.Builder builder) {
                        builder.requestInterceptor(new OutboundRestClientInterceptor(limiter.getObject()));
                    }
                    return bean;
                }
            };
        }
    }

    /** Spring AI 2's OpenAI and Anthropic models: the providers' official SDKs on OkHttp, customized by Spring AI's own hooks. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "okhttp3.Interceptor")
    @Import(SdkHttpClientCustomizers.class)
    static class SdkHttpClients {
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.web.reactive.function.client.WebClient")
    static class WebClients {

        @Bean
        static BeanPostProcessor outboundWebClientBuilders(ObjectProvider<OutboundLimiter> limiter) {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String name) {
                    if (bean instanceof WebClient.Builder builder) {
                        builder.filter(new OutboundWebClientFilter(limiter.getObject()));
                    }
                    return bean;
                }
            };
        }
    }
}
