package dev.llmratelimit.spring.boot4;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.spring.RateLimitHealth;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/** The limiter's health in Spring Boot 4 ({@code org.springframework.boot.health.contributor}). */
public final class Boot4HealthIndicator implements HealthIndicator {

    private final RateLimitRuntime runtime;

    public Boot4HealthIndicator(RateLimitRuntime runtime) {
        this.runtime = runtime;
    }

    @Override
    public Health health() {
        RateLimitHealth health = RateLimitHealth.of(runtime);
        return (health.up() ? Health.up() : Health.down()).withDetails(health.details()).build();
    }
}
