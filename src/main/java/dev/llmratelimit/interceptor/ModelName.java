package dev.llmratelimit.interceptor;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the parameter of a {@link RateLimited} method that holds the model name (a
 * {@code CharSequence}). Named so as not to clash with the CDI stereotype
 * {@code jakarta.enterprise.inject.Model}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface ModelName {
}
