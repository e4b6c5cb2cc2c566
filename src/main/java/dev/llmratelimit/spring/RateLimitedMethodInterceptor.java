package dev.llmratelimit.spring;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.interceptor.CallOrigin;
import dev.llmratelimit.interceptor.LimitedInvocation;
import dev.llmratelimit.interceptor.RateLimitedCalls;
import dev.llmratelimit.interceptor.ServedRequest;
import dev.llmratelimit.servlet.RateLimitFilter;
import jakarta.servlet.http.HttpServletRequest;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.util.ClassUtils;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

import java.lang.reflect.Method;
import java.lang.reflect.UndeclaredThrowableException;
import java.security.Principal;
import java.util.function.Supplier;

/**
 * {@code @RateLimited} on a Spring bean's method, with the same meaning as under CDI: the caller from the
 * HTTP request the call serves, else from Spring Security's context.
 */
final class RateLimitedMethodInterceptor implements MethodInterceptor {

    private static final boolean SPRING_SECURITY = ClassUtils.isPresent(
            "org.springframework.security.core.context.SecurityContextHolder", RateLimitedMethodInterceptor.class.getClassLoader());

    private final Supplier<RateLimitRuntime> runtime;

    RateLimitedMethodInterceptor(Supplier<RateLimitRuntime> runtime) {
        this.runtime = runtime;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        return RateLimitedCalls.limit(runtime, SpringCallOrigin.INSTANCE, new LimitedInvocation() {
            @Override
            public Method method() {
                return invocation.getMethod();
            }

            @Override
            public Object[] parameters() {
                return invocation.getArguments().clone();
            }

            @Override
            public void parameters(Object[] arguments) {
                System.arraycopy(arguments, 0, invocation.getArguments(), 0, arguments.length);
            }

            @Override
            public Object proceed() throws Exception {
                try {
                    return invocation.proceed();
                } catch (Exception | Error e) {
                    throw e;
                } catch (Throwable t) {
                    throw new UndeclaredThrowableException(t);
                }
            }
        });
    }

    private enum SpringCallOrigin implements CallOrigin {
        INSTANCE;

        @Override
        public ServedRequest request() {
            if (RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes attributes) {
                HttpServletRequest request = attributes.getRequest();
                return new ServedRequest(request.getAttribute(RateLimitFilter.LIMITED) != null, request.getUserPrincipal());
            }
            return null;
        }

        @Override
        public Principal principal() {
            return SPRING_SECURITY ? SecurityContextPrincipal.current() : null;
        }
    }
}
