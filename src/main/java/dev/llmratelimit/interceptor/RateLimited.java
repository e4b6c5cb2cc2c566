package dev.llmratelimit.interceptor;

import jakarta.interceptor.InterceptorBinding;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Rate-limits calls of a CDI bean method (a JAX-RS resource method, or any business method that
 * calls a chat-completion model) with the same engine, store, priorities and refusals as
 * {@code RateLimitFilter}. On a class, every business method of the bean is limited.
 *
 * <p>The model comes from the arguments: a parameter annotated {@link ModelName}, else the first
 * argument that names one (a JSON request body as {@code String} or {@code byte[]}, a {@code Map}
 * with {@code "model"}, an object with {@code model()} or {@code getModel()}). The usage comes from
 * the return value. A refused call throws {@link RateLimitRefusalException} (a
 * {@link RateLimitExceededException} for a 429), which the shipped JAX-RS exception mapper turns
 * into the filter's answer.
 */
@Inherited
@InterceptorBinding
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface RateLimited {
}
