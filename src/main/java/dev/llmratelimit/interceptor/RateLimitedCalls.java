package dev.llmratelimit.interceptor;

import dev.llmratelimit.config.InternalFailures;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.config.ResolvedCaller;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.CallEnding;
import dev.llmratelimit.interceptor.jaxrs.JaxRsResults;
import dev.llmratelimit.wait.WaitingDecision;

import java.security.Principal;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * What {@link RateLimited} means, whichever container intercepts the call (CDI's
 * {@link RateLimitInterceptor}, Spring AOP): finds the model in the arguments and the caller through the
 * same {@code CallerResolver} as the filter, admits or throws {@link RateLimitRefusalException}, and
 * records the usage of the return value.
 *
 * <p>A call is counted once: not again when {@code RateLimitFilter} already limited the HTTP request
 * it serves, nor when it is nested in another {@code @RateLimited} call on the same thread (whose
 * usage it then is, when it returns one).
 */
public final class RateLimitedCalls {

    private static final ThreadLocal<AdmittedCall> LIMITING = new ThreadLocal<>();
    private static final boolean JAX_RS_API = OptionalApis.JAX_RS_RESPONSE != null;

    private RateLimitedCalls() {
    }

    /**
     * Limits one call: decides it, runs it when admitted (after waiting for capacity where that is
     * configured), records the usage of what it returns, and gives back what it acquired on every path.
     *
     * @param runtimes the application's runtime, asked for it inside the call so that its failure is an internal error
     * @throws RateLimitRefusalException when the call is refused
     */
    public static Object limit(Supplier<RateLimitRuntime> runtimes, CallOrigin origin, LimitedInvocation invocation)
            throws Exception {
        AdmittedCall outer = LIMITING.get();
        if (outer != null) {
            Object result = invocation.proceed();
            outer.nestedReturned(result);
            return result;
        }
        RateLimitRuntime runtime = null;
        Decided decided;
        try {
            runtime = runtimes.get();
            decided = decide(invocation, runtime, origin);
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
        if (CompletionStage.class.isAssignableFrom(invocation.method().getReturnType())) {
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
    private static Decided decide(LimitedInvocation invocation, RateLimitRuntime runtime, CallOrigin origin) {
        ServedRequest request = origin.request();
        if (!runtime.settings().interceptorEnabled() || (request != null && request.limitedByFilter())) {
            return null;
        }
        ChatCall call = ChatArguments.find(invocation.method(), invocation.parameters());
        Principal fromRequest = request == null ? null : request.principal();
        ResolvedCaller caller = runtime.resolve(fromRequest != null ? fromRequest : origin.principal());
        Supplier<Admission> decide = () -> runtime.admit(caller, who -> AdmissionRequest.of(call.model(), who.teamPriority(),
                who.ownPriority()).withIdentity(who.budgetIdentity()));
        Admission admission = decide.get();
        if (admission.permitsCall()) {
            return new Decided(admission, null, call);
        }
        WaitingDecision<Admission> waiting = CapacityWait.enter(runtime, call, caller.caller(), admission, decide);
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
    private static Object failedInternally(LimitedInvocation invocation, RateLimitRuntime runtime,
                                           RuntimeException failure) throws Exception {
        return failedInternally(invocation, runtime, InternalFailures.EntryPoint.INTERCEPTOR, failure);
    }

    private static Object failedInternally(LimitedInvocation invocation, RateLimitRuntime runtime,
                                           InternalFailures.EntryPoint where, RuntimeException failure) throws Exception {
        if (InternalFailures.failOpen(runtime, where, failure)) {
            return invocation.proceed();
        }
        throw RateLimitRefusalException.internalError();
    }

    /** Runs an admitted call; the method is the interceptor's own from here on, returned or thrown. */
    private static Object proceed(LimitedInvocation invocation, RateLimitRuntime runtime, Admission admission,
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
    private static CompletionStage<Object> proceedLater(LimitedInvocation invocation, RateLimitRuntime runtime,
                                                        Admission admission, ChatCall call) {
        try {
            return (CompletionStage<Object>) proceed(invocation, runtime, admission, call);
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The asynchronous method of a call whose decision again failed: run unlimited, or the 503. */
    @SuppressWarnings("unchecked")
    private static CompletionStage<Object> proceedLater(LimitedInvocation invocation, RateLimitRuntime runtime,
                                                        RuntimeException failure) {
        try {
            return (CompletionStage<Object>) failedInternally(invocation, runtime, InternalFailures.EntryPoint.WAIT_ROOM,
                    failure);
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static boolean recordsEventSink(LimitedInvocation invocation, AdmittedCall admitted) {
        Object[] arguments = invocation.parameters();
        if (!JaxRsResults.recordEventSink(arguments, admitted)) {
            return false;
        }
        invocation.parameters(arguments);
        return true;
    }
}
