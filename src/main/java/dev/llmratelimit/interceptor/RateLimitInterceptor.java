package dev.llmratelimit.interceptor;

import dev.llmratelimit.config.RateLimitContext;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.ThrottledLog;
import dev.llmratelimit.http.ErrorStyle;
import dev.llmratelimit.identity.Caller;
import dev.llmratelimit.interceptor.jaxrs.JaxRsResults;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import dev.llmratelimit.wait.WaitingDecision;

import java.security.Principal;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Limits {@link RateLimited} calls with the application's shared {@link RateLimitContext}: finds the
 * model in the arguments and the caller through the same {@code CallerResolver} as the filter,
 * admits or throws {@link RateLimitRefusalException}, and records the usage of the return value.
 *
 * <p>Enabled for the whole application by its {@link Priority}, without a {@code beans.xml} entry;
 * {@code @Interceptor} is a bean-defining annotation, so {@code bean-discovery-mode="annotated"}
 * finds it. The priority, {@code PLATFORM_BEFORE + 150}, puts it before {@code @Transactional}
 * (Narayana's interceptors are at {@code PLATFORM_BEFORE + 200}) and every library and application
 * interceptor, so a refused call starts no transaction; it stays after
 * {@code @ActivateRequestContext} ({@code PLATFORM_BEFORE + 100}). An EJB's container-managed
 * transaction is not an interceptor and is already open: there the refusal is an application
 * exception that does not roll it back.
 *
 * <p>A call is counted once: not again when {@code RateLimitFilter} already limited the HTTP request
 * it serves, nor when it is nested in another {@code @RateLimited} call on the same thread (whose
 * usage it then is, when it returns one).
 */
@RateLimited
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 150)
public class RateLimitInterceptor {

    private static final ThrottledLog INTERNAL_FAILURES = new ThrottledLog(RateLimitInterceptor.class, System.Logger.Level.ERROR);
    private static final ThreadLocal<AdmittedCall> LIMITING = new ThreadLocal<>();
    private static final boolean SERVLET_API = OptionalApis.HTTP_SERVLET_REQUEST != null;
    private static final boolean JAX_RS_API = OptionalApis.JAX_RS_RESPONSE != null;

    @Inject
    RateLimitContext context;

    @Inject
    @Any
    Instance<Object> beans;

    @AroundInvoke
    public Object limit(InvocationContext invocation) throws Exception {
        AdmittedCall outer = LIMITING.get();
        if (outer != null) {
            Object result = invocation.proceed();
            outer.nestedReturned(result);
            return result;
        }
        ServedRequest request = SERVLET_API ? ServletRequests.current(beans) : null;
        RateLimitRuntime runtime = context.runtime();
        if (!runtime.settings().interceptorEnabled() || (request != null && request.limitedByFilter())) {
            return invocation.proceed();
        }
        ChatCall call = ChatArguments.find(invocation.getMethod(), invocation.getParameters());
        Admission admission;
        Supplier<Admission> decide;
        try {
            Caller caller = runtime.callerResolver().resolve(principal(request));
            decide = () -> runtime.limiter().admit(AdmissionRequest.of(call.model(), caller.teamPriority(),
                    caller.ownPriority()).withCallers(runtime.callerLimits().planFor(caller))
                    .withIdentity(caller.budgetIdentity()));
            admission = decide.get();
        } catch (RuntimeException e) {
            INTERNAL_FAILURES.log("Rate limiting failed; call passed through unlimited", e);
            return invocation.proceed();
        }
        ErrorStyle style = runtime.settings().errorStyle();
        if (admission.permitsCall()) {
            return proceed(invocation, admission, call, style);
        }
        WaitingDecision<Admission> waiting = CapacityWait.enter(runtime, call.model(), admission, decide);
        if (waiting == null) {
            throw RateLimitRefusalException.of(admission, style);
        }
        if (CompletionStage.class.isAssignableFrom(invocation.getMethod().getReturnType())) {
            return CapacityWait.later(waiting, admitted -> proceedLater(invocation, admitted, call, style));
        }
        return proceed(invocation, CapacityWait.await(waiting, admission), call, style);
    }

    /** Runs an admitted call; the method is the interceptor's own from here on, returned or thrown. */
    private static Object proceed(InvocationContext invocation, Admission admission, ChatCall call, ErrorStyle style)
            throws Exception {
        if (!admission.permitsCall()) {
            throw RateLimitRefusalException.of(admission, style);
        }
        AdmittedCall admitted = new AdmittedCall(admission, call);
        boolean streamsEvents = JAX_RS_API && recordsEventSink(invocation, admitted);
        Object result;
        LIMITING.set(admitted);
        try {
            result = invocation.proceed();
        } catch (Exception | Error e) {
            admitted.abort();
            throw e;
        } finally {
            LIMITING.remove();
        }
        if (streamsEvents) {
            return result;     // the event sink finishes the call when the method closes it
        }
        if (JAX_RS_API && JaxRsResults.handles(result)) {
            return JaxRsResults.settle(result, admitted);
        }
        admitted.finish(result);
        return result;
    }

    /** The asynchronous method of a call that waited: its own stage once it runs, or the refusal. */
    @SuppressWarnings("unchecked")
    private static CompletionStage<Object> proceedLater(InvocationContext invocation, Admission admission, ChatCall call,
                                                        ErrorStyle style) {
        try {
            return (CompletionStage<Object>) proceed(invocation, admission, call, style);
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static boolean recordsEventSink(InvocationContext invocation, AdmittedCall admitted) {
        Object[] arguments = invocation.getParameters();
        if (!JaxRsResults.recordEventSink(arguments, admitted)) {
            return false;
        }
        invocation.setParameters(arguments);
        return true;
    }

    private Principal principal(ServedRequest request) {
        Principal fromRequest = request == null ? null : request.principal();
        return fromRequest != null ? fromRequest : CallerPrincipals.current(beans);
    }
}
