package dev.llmratelimit.spring;

import dev.llmratelimit.config.ConfigurationLoader;
import dev.llmratelimit.config.RateLimitContext;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.identity.CallerResolver;
import dev.llmratelimit.interceptor.RateLimited;
import dev.llmratelimit.observe.Telemetry;
import dev.llmratelimit.observe.micrometer.MicrometerTelemetry;
import dev.llmratelimit.servlet.RateLimitFilter;
import dev.llmratelimit.spring.boot3.Boot3HealthIndicator;
import dev.llmratelimit.spring.boot4.Boot4HealthIndicator;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.DispatcherType;
import org.springframework.aop.Advisor;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * The library in a Spring Boot servlet application (docs/spring-boot.md): the runtime built from the
 * {@code llm.ratelimit.*} properties of Spring's environment (invalid configuration fails the context),
 * the filter on every path after Spring Security's filter chain (the status page on the actuator's port
 * where it has its own), {@code @RateLimited} on Spring beans, and
 * the refusal of a {@code @RateLimited} call answered as the filter answers, the meters in the application's
 * Micrometer registry, and the actuator's health indicator (Spring Boot 3's or 4's health API, each in its
 * own class loaded only where that API is).
 */
@AutoConfiguration
@ConditionalOnClass(name = {"jakarta.servlet.Filter", "org.springframework.boot.web.servlet.FilterRegistrationBean"})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
public class RateLimitAutoConfiguration {

    /** Spring Security's property for its filter chain's order, and that order when it is not set. */
    static final String SECURITY_FILTER_ORDER = "spring.security.filter.order";
    static final int DEFAULT_SECURITY_FILTER_ORDER = -100;
    /** How far after Spring Security's filter chain the filter runs, so the caller is authenticated. */
    static final int AFTER_SECURITY = 10;
    /** Before {@code @Transactional} (the lowest precedence by default): a refused call starts no transaction. */
    static final int ADVISOR_ORDER = Ordered.LOWEST_PRECEDENCE - 1000;
    /** The bean name; the actuator shows it as the component {@code llmRateLimit}. */
    static final String HEALTH_INDICATOR = "llmRateLimitHealthIndicator";

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public RateLimitRuntime llmRateLimitRuntime(Environment environment, ObjectProvider<CallerResolver> callerResolver,
                                                ObjectProvider<Telemetry> telemetry) {
        ConfigurationLoader loader = ConfigurationLoader.reading(() ->
                new ConfigurationLoader.Source("Spring Environment", SpringProperties.all(environment)));
        return RateLimitContext.startRuntime(loader, callerResolver.getIfAvailable(),
                telemetry.getIfAvailable(Telemetry::fromEnvironment));
    }

    @Bean
    @ConditionalOnMissingBean(name = "llmRateLimitFilter")
    public FilterRegistrationBean<RateLimitFilter> llmRateLimitFilter(RateLimitRuntime runtime, Environment environment) {
        FilterRegistrationBean<RateLimitFilter> registration = new FilterRegistrationBean<>(
                new RateLimitFilter(runtime, !statusPageOnManagementPort(environment)));
        registration.addUrlPatterns("/*");
        registration.setDispatcherTypes(DispatcherType.REQUEST, DispatcherType.ASYNC);
        registration.setAsyncSupported(true);
        registration.setOrder(filterOrder(environment));
        return registration;
    }

    /** Whether the actuator's own port serves the status page ({@link RateLimitManagementContext}). */
    static boolean statusPageOnManagementPort(Environment environment) {
        return ClassUtils.isPresent(RateLimitManagementContext.MANAGEMENT_PORT_TYPE, RateLimitAutoConfiguration.class.getClassLoader())
                && RateLimitManagementContext.separatePort(environment);
    }

    /** Spring Security's filter chain order plus {@value #AFTER_SECURITY}: -90 by default. */
    static int filterOrder(Environment environment) {
        return environment.getProperty(SECURITY_FILTER_ORDER, Integer.class, DEFAULT_SECURITY_FILTER_ORDER) + AFTER_SECURITY;
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static Advisor llmRateLimitedAdvisor(ObjectProvider<RateLimitRuntime> runtime) {
        ComposablePointcut annotated = new ComposablePointcut(new AnnotationMatchingPointcut(RateLimited.class, true))
                .union(new AnnotationMatchingPointcut(null, RateLimited.class, true));
        DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(annotated, new RateLimitedMethodInterceptor(runtime::getObject));
        advisor.setOrder(ADVISOR_ORDER);
        return advisor;
    }

    @Bean
    @ConditionalOnMissingBean
    public RateLimitRefusalAdvice llmRateLimitRefusalAdvice() {
        return new RateLimitRefusalAdvice();
    }

    /**
     * The meters into the application's Micrometer registry where it has one (the actuator's
     * {@code /actuator/metrics} and {@code /actuator/prometheus} show them); else into OpenTelemetry
     * as on any server. An application's own {@link Telemetry} bean replaces this choice.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
    static class MicrometerMeters {

        @Bean
        @ConditionalOnMissingBean
        Telemetry llmRateLimitTelemetry(ObjectProvider<MeterRegistry> registry) {
            MeterRegistry meters = registry.getIfUnique();   // Spring Boot makes a composite primary when it has several
            return meters != null ? MicrometerTelemetry.of(meters) : Telemetry.fromEnvironment();
        }
    }

    /** The health indicator {@code llmRateLimit} where the actuator is Spring Boot 3's. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
    @ConditionalOnMissingClass("org.springframework.boot.health.contributor.HealthIndicator")
    static class Boot3Health {

        @Bean
        @ConditionalOnMissingBean(name = HEALTH_INDICATOR)
        Boot3HealthIndicator llmRateLimitHealthIndicator(RateLimitRuntime runtime) {
            return new Boot3HealthIndicator(runtime);
        }
    }

    /** The health indicator {@code llmRateLimit} where the actuator is Spring Boot 4's. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class Boot4Health {

        @Bean
        @ConditionalOnMissingBean(name = HEALTH_INDICATOR)
        Boot4HealthIndicator llmRateLimitHealthIndicator(RateLimitRuntime runtime) {
            return new Boot4HealthIndicator(runtime);
        }
    }
}
