package dev.llmratelimit.interceptor;

import dev.llmratelimit.config.RateLimitContext;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

import java.lang.reflect.Method;
import java.security.Principal;

/**
 * Limits {@link RateLimited} calls under CDI with the application's shared {@link RateLimitContext}, as
 * {@link RateLimitedCalls} says: the caller's principal from the served request, else from the
 * container's injectable principals.
 *
 * <p>Enabled for the whole application by its {@link Priority}, without a {@code beans.xml} entry;
 * {@code @Interceptor} is a bean-defining annotation, so {@code bean-discovery-mode="annotated"}
 * finds it. The priority, {@code PLATFORM_BEFORE + 150}, puts it before {@code @Transactional}
 * (Narayana's interceptors are at {@code PLATFORM_BEFORE + 200}) and every library and application
 * interceptor, so a refused call starts no transaction; it stays after
 * {@code @ActivateRequestContext} ({@code PLATFORM_BEFORE + 100}). An EJB's container-managed
 * transaction is not an interceptor and is already open: there the refusal is an application
 * exception that does not roll it back.
 */
@RateLimited
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 150)
public class RateLimitInterceptor {

    private static final boolean SERVLET_API = OptionalApis.HTTP_SERVLET_REQUEST != null;

    @Inject
    RateLimitContext context;

    @Inject
    @Any
    Instance<Object> beans;

    @AroundInvoke
    public Object limit(InvocationContext invocation) throws Exception {
        return RateLimitedCalls.limit(() -> context.runtime(), new CallOrigin() {
            @Override
            public ServedRequest request() {
                return SERVLET_API ? ServletRequests.current(beans) : null;
            }

            @Override
            public Principal principal() {
                return CallerPrincipals.current(beans);
            }
        }, new LimitedInvocation() {
            @Override
            public Method method() {
                return invocation.getMethod();
            }

            @Override
            public Object[] parameters() {
                return invocation.getParameters();
            }

            @Override
            public void parameters(Object[] arguments) {
                invocation.setParameters(arguments);
            }

            @Override
            public Object proceed() throws Exception {
                return invocation.proceed();
            }
        });
    }
}
