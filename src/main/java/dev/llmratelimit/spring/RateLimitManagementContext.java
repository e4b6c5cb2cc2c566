package dev.llmratelimit.spring;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.servlet.StatusPageFilter;
import jakarta.servlet.DispatcherType;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The status page on the actuator's own port ({@code management.server.port}) where it has one: Spring Boot
 * builds a child context for that port with this configuration, and the application's port then leaves the
 * page out. Spring Security's filter chain guards the management port as it guards the application's.
 */
@ManagementContextConfiguration(value = ManagementContextType.CHILD, proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnBean(RateLimitRuntime.class)
public class RateLimitManagementContext {

    static final String MANAGEMENT_PORT_TYPE = "org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType";

    /** Whether the actuator has a port of its own; call only where the actuator's auto-configuration is present. */
    static boolean separatePort(Environment environment) {
        return ManagementPortType.get(environment) == ManagementPortType.DIFFERENT;
    }

    @Bean
    FilterRegistrationBean<StatusPageFilter> llmRateLimitStatusPage(RateLimitRuntime runtime, Environment environment) {
        FilterRegistrationBean<StatusPageFilter> registration = new FilterRegistrationBean<>(new StatusPageFilter(runtime));
        registration.addUrlPatterns("/*");
        registration.setDispatcherTypes(DispatcherType.REQUEST);
        registration.setOrder(RateLimitAutoConfiguration.filterOrder(environment));
        return registration;
    }
}
