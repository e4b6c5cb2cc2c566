package dev.llmratelimit.spring.boot3;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.spring.RateLimitHealth;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/** The limiter's health in Spring Boot 3's actuator ({@code org.springframework.boot.actuate.health}). */
public final class Boot3HealthIndicator implements HealthIndicator {

    private final RateLimitRuntime runtime;

    public Boot3HealthIndicator(RateLimitRuntime runtime) {
        this.runtime = runtime;
    }

    @Override
    public Health health() {
        RateLimitHealth health = RateLimitHealth.of(runtime);
        return (health.up() ? Health.up() : Health.down()).withDetails(health.details()).build();
    }
}
