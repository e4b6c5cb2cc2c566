package dev.llmratelimit.interceptor;

import dev.llmratelimit.interceptor.jaxrs.RateLimitExceptionMapper;
import jakarta.ws.rs.core.Application;

import java.util.Set;

/** The test's JAX-RS application: the resource and the mapper the jar ships. */
public class ChatApplication extends Application {

    @Override
    public Set<Class<?>> getClasses() {
        return Set.of(ChatResource.class, RateLimitExceptionMapper.class);
    }
}
