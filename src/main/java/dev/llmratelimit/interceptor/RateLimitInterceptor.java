package dev.llmratelimit.interceptor;

import dev.llmratelimit.config.InternalFailures;
import dev.llmratelimit.config.RateLimitContext;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.CallEnding;
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
        RateLimitRuntime runtime = null;
        Decided decided;
        try {
            runtime = context.runtime();
            decided = decide(invocation, runtime);
        } catch (RateLimitRefusalException e) {
            throw e;
        } catch (RuntimeException e) {
            return failedInternally(invocation, runtime, e);
        }
        if (decided == null) {
            return invocation.proceed();
        }
        if (decided.waiting() == null) {
            return proceed(invocation, runtime, decided.admission(), decided.call());
        }
        RateLimitRuntime limiting = runtime;
        if (CompletionStage.class.isAssignableFrom(invocation.getMethod().getReturnType())) {
            return CapacityWait.later(decided.waiting(),
                    admitted -> proceedLater(invocation, limiting, admitted, decided.call()),
                    failure -> proceedLater(invocation, limiting, failure));
        }
        Admission admitted;
        try {
            admitted = CapacityWait.await(decided.waiting(), decided.admission());
        } catch (RuntimeException e) {
            return failedInternally(invocation, runtime, InternalFailures.EntryPoint.WAIT_ROOM, e);
        }
        return proceed(invocation, runtime, admitted, decided.call());
    }

    /**
     * What the limiter decided for a call, before the call: admitted ({@code waiting} null), or
     * refused and waiting for capacity; {@code null} when this interceptor does not limit it.
     *
     * @throws RateLimitRefusalException when it is refused and cannot wait
     */
    private Decided decide(InvocationContext invocation, RateLimitRuntime runtime) {
        ServedRequest request = SERVLET_API ? ServletRequests.current(beans) : null;
        if (!runtime.settings().interceptorEnabled() || (request != null && request.limitedByFilter())) {
            return null;
        }
        ChatCall call = ChatArguments.find(invocation.getMethod(), invocation.getParameters());
        Caller caller = runtime.callerResolver().resolve(principal(request));
        Supplier<Admission> decide = () -> runtime.limiter().admit(AdmissionRequest.of(call.model(), caller.teamPriority(),
                caller.ownPriority()).withCallers(runtime.callerLimits().planFor(caller))
                .withIdentity(caller.budgetIdentity()));
        Admission admission = decide.get();
        if (admission.permitsCall()) {
            return new Decided(admission, null, call);
        }
        WaitingDecision<Admission> waiting = CapacityWait.enter(runtime, call, caller, admission, decide);
        if (waiting == null) {
            throw RateLimitRefusalException.of(admission, runtime.settings().errorStyle());
        }
        return new Decided(admission, waiting, call);
    }

    /** @param waiting {@code null} when {@code admission} admitted the call; else its wait for capacity */
    private record Decided(Admission admission, WaitingDecision<Admission> waiting, ChatCall call) {
    }

    /**
     * The limiter failed on this call ({@code on-internal-error}): the method runs unlimited when the
     * setting says fail-open, else the call is refused with 503.
     */
    private static Object failedInternally(InvocationContext invocation, RateLimitRuntime runtime,
                                           RuntimeException failure) throws Exception {
        return failedInternally(invocation, runtime, InternalFailures.EntryPoint.INTERCEPTOR, failure);
    }

    private static Object failedInternally(InvocationContext invocation, RateLimitRuntime runtime,
                                           InternalFailures.EntryPoint where, RuntimeException failure) throws Exception {
        if (InternalFailures.failOpen(runtime, where, failure)) {
            return invocation.proceed();
        }
        throw RateLimitRefusalException.internalError();
    }

    /** Runs an admitted call; the method is the interceptor's own from here on, returned or thrown. */
    private static Object proceed(InvocationContext invocation, RateLimitRuntime runtime, Admission admission,
                                  ChatCall call) throws Exception {
        AdmittedCall admitted;
        boolean streamsEvents;
        try {
            if (!admission.permitsCall()) {
                throw RateLimitRefusalException.of(admission, runtime.settings().errorStyle());
            }
            admitted = new AdmittedCall(admission, call);
            streamsEvents = JAX_RS_API && recordsEventSink(invocation, admitted);
        } catch (RateLimitRefusalException e) {
            throw e;
        } catch (RuntimeException e) {
            CallEnding.NOT_SERVED.settle(admission);
            return failedInternally(invocation, runtime, e);
        }
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
        try {
            if (JAX_RS_API && JaxRsResults.handles(result)) {
                return JaxRsResults.settle(result, admitted);
            }
            admitted.finish(result);
        } catch (RuntimeException e) {
            admitted.settlingFailed(e);
        }
        return result;
    }

    /** The asynchronous method of a call that waited: its own stage once it runs, or the refusal. */
    @SuppressWarnings("unchecked")
    private static CompletionStage<Object> proceedLater(InvocationContext invocation, RateLimitRuntime runtime,
                                                        Admission admission, ChatCall call) {
        try {
            return (CompletionStage<Object>) proceed(invocation, runtime, admission, call);
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The asynchronous method of a call whose decision again failed: run unlimited, or the 503. */
    @SuppressWarnings("unchecked")
    private static CompletionStage<Object> proceedLater(InvocationContext invocation, RateLimitRuntime runtime,
                                                        RuntimeException failure) {
        try {
            return (CompletionStage<Object>) failedInternally(invocation, runtime, InternalFailures.EntryPoint.WAIT_ROOM,
                    failure);
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
