package dev.llmratelimit.interceptor;

import java.lang.reflect.Method;

/** A {@link RateLimited} call as the intercepting container hands it over (CDI's or Spring's invocation). */
public interface LimitedInvocation {

    Method method();

    Object[] parameters();

    /** Replaces the arguments the call runs with (a JAX-RS event sink wrapped to record usage). */
    void parameters(Object[] arguments);

    /** Runs the method; what it throws passes through. */
    Object proceed() throws Exception;
}
