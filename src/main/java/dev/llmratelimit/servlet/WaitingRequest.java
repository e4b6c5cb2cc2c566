package dev.llmratelimit.servlet;

import dev.llmratelimit.chat.ChatRequest;
import dev.llmratelimit.engine.CallEnding;
import dev.llmratelimit.http.ErrorResponse;
import dev.llmratelimit.http.ErrorStyle;
import dev.llmratelimit.identity.Caller;
import dev.llmratelimit.usage.EndpointShape;
import dev.llmratelimit.wait.WaitRoom;
import dev.llmratelimit.wait.WaitingDecision;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A refused request waiting for capacity without holding a container thread: the request is put in
 * asynchronous mode and its decision enters the {@link WaitRoom}; once a decision admits it, it is
 * dispatched again to its own URI, where the filter (mapped for {@code ASYNC} dispatches) runs it
 * like any admitted request. When its time is up it gets the refusal it would have had. A client
 * that the container reports gone (an error or timeout of the asynchronous request) leaves the room
 * and counts nothing.
 */
final class WaitingRequest implements AsyncListener {

    /** Request attribute holding the {@link Resumed} call of an admitted waiter, for the ASYNC dispatch. */
    static final String RESUMED = WaitingRequest.class.getName() + ".RESUMED";

    static final String WAITED_HEADER = "x-ratelimit-waited-ms";

    private static final System.Logger LOG = System.getLogger(WaitingRequest.class.getName());

    /**
     * What the filter needs to run the admitted request in its ASYNC dispatch.
     *
     * @param choice the admitting decision; {@code null} when deciding again failed and
     *               {@code on-internal-error=fail-open} lets the request through unlimited
     */
    record Resumed(ModelChoice choice, ChatRequest chat, byte[] body, long waitedMillis, AtomicBoolean taken) {

        Resumed(ModelChoice choice, ChatRequest chat, byte[] body, long waitedMillis) {
            this(choice, chat, body, waitedMillis, new AtomicBoolean());
        }

        /**
         * Whether the caller is the one that runs or gives back this admission: the ASYNC dispatch, or
         * whoever finds it not run (the dispatch failed, the request completed without it). Once only.
         */
        boolean claim() {
            return taken.compareAndSet(false, true);
        }
    }

    /**
     * Where a request waits: its rank, how long at most, and whose request it is in the room's
     * share per caller ({@link #waiterOf}).
     */
    record Place(int rank, long maxWaitMillis, Object caller) {
    }

    /** The caller a waiter counts for: the principal's name; every anonymous request is one caller. */
    static Object waiterOf(Caller caller) {
        return caller.principal() == null ? "" : caller.principal();
    }

    private final HttpServletRequest request;
    private final HttpServletResponse response;
    private final AsyncContext async;
    private final ErrorStyle style;
    private final EndpointShape shape;
    private final Predicate<RuntimeException> failOpen;
    private volatile WaitingDecision<ModelChoice> decision;
    /** The admitted call handed to the ASYNC dispatch; {@code null} until then. */
    private volatile Resumed resumed;

    private WaitingRequest(HttpServletRequest request, HttpServletResponse response, AsyncContext async,
                           ErrorStyle style, EndpointShape shape, Predicate<RuntimeException> failOpen) {
        this.request = request;
        this.response = response;
        this.async = async;
        this.style = style;
        this.shape = shape;
        this.failOpen = failOpen;
    }

    /**
     * Puts the refused request in the room, or answers its refusal at once when it does not fit (the
     * room's waiters, the bytes of their bodies, or this caller's share).
     *
     * @param failOpen reports a failure to decide the request again and says whether it then goes on
     *                 unlimited ({@code on-internal-error})
     */
    static void start(WaitRoom room, HttpServletRequest request, HttpServletResponse response, ChatRequest chat,
                      byte[] body, ModelChoice refusal, Supplier<ModelChoice> decideAgain, Place place,
                      Clock clock, ErrorStyle style, Predicate<RuntimeException> failOpen)
            throws IOException {
        long maxWaitMillis = place.maxWaitMillis();
        WaitingDecision<ModelChoice> decision = WaitingDecision.enter(room, refusal, new ChoiceDecider(decideAgain),
                place.rank(), clock, maxWaitMillis, body.length, place.caller());
        if (decision == null) {
            JsonErrors.write(response, ErrorResponse.refusal(refusal.admission(), style).forShape(chat.shape()));
            return;
        }
        AsyncContext async;
        try {
            async = request.startAsync();
        } catch (RuntimeException e) {
            decision.leave();
            throw e;
        }
        async.setTimeout(maxWaitMillis + 30_000);
        WaitingRequest waiting = new WaitingRequest(request, response, async, style, chat.shape(), failOpen);
        waiting.decision = decision;
        async.addListener(waiting);
        decision.outcome().whenComplete((choice, failure) -> {
            if (failure == null) {
                waiting.go(choice, chat, body);
            } else if (!(failure instanceof CancellationException)) {
                waiting.failed(failure, chat, body);
            }
        });
    }

    private void go(ModelChoice choice, ChatRequest chat, byte[] body) {
        if (choice.permitsCall()) {
            dispatch(new Resumed(choice, chat, body, decision.waitedMillis()));
            return;
        }
        ErrorResponse refusal;
        try {
            refusal = ErrorResponse.refusal(choice.admission(), style);
        } catch (RuntimeException e) {
            failed(e, chat, body);
            return;
        }
        answer(refusal);
    }

    /** Deciding it again failed: through unlimited ({@code fail-open}) or 503, as {@code on-internal-error} says. */
    private void failed(Throwable failure, ChatRequest chat, byte[] body) {
        RuntimeException cause = failure instanceof RuntimeException runtime ? runtime : new IllegalStateException(failure);
        if (failOpen.test(cause)) {
            dispatch(new Resumed(null, chat, body, decision.waitedMillis()));
        } else {
            answer(ErrorResponse.internalError());
        }
    }

    /**
     * Hands the call to an ASYNC dispatch. A container that refuses it (the request already timed
     * out or failed) will run nothing: the admission is given back here, unless the request's end
     * already gave it back, and the client, if still there, is answered 503.
     */
    private void dispatch(Resumed call) {
        resumed = call;
        try {
            request.setAttribute(RESUMED, call);
            async.dispatch();
        } catch (RuntimeException e) {
            giveBackUnrun(call);
            LOG.log(System.Logger.Level.DEBUG, "The container refused to run a request admitted after waiting", e);
            try {
                answer(ErrorResponse.internalError());
            } catch (RuntimeException ended) {
                LOG.log(System.Logger.Level.DEBUG, "The request had already ended", ended);
            }
        }
    }

    private static void giveBackUnrun(Resumed call) {
        if (call.claim() && call.choice() != null) {
            CallEnding.NOT_SERVED.settle(call.choice().admission());
        }
    }

    private void answer(ErrorResponse answer) {
        try {
            Map<String, String> headers = new LinkedHashMap<>(answer.headers());
            headers.put(WAITED_HEADER, Long.toString(decision.waitedMillis()));
            JsonErrors.write(response, new ErrorResponse(answer.status(), headers, answer.type(), answer.code(),
                    answer.message(), false).forShape(shape));
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "Could not answer a request whose wait ended", e);
        } finally {
            async.complete();
        }
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        decision.expire();
    }

    @Override
    public void onError(AsyncEvent event) {
        decision.leave();
    }

    @Override
    public void onComplete(AsyncEvent event) {
        decision.leave();
        Resumed call = resumed;
        if (call != null && !call.taken().get()) {
            giveBackUnrun(call);
            LOG.log(System.Logger.Level.WARNING, "A request admitted after waiting was not run: map the "
                    + "llm-ratelimit filter for ASYNC dispatches (dispatcher REQUEST and ASYNC)");
        }
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
    }

    /** Decides the request again over its model and fallbacks. */
    private record ChoiceDecider(Supplier<ModelChoice> decideAgain) implements WaitingDecision.Decider<ModelChoice> {

        @Override
        public ModelChoice decide() {
            return decideAgain.get();
        }

        @Override
        public boolean admits(ModelChoice decision) {
            return decision.permitsCall();
        }

        @Override
        public Object refusingGroup(ModelChoice decision) {
            return decision.refusingGroup();
        }

        @Override
        public long clearsInMillis(ModelChoice decision) {
            return decision.clearsInMillis();
        }

        @Override
        public void giveBack(ModelChoice decision) {
            CallEnding.NOT_SERVED.settle(decision.admission());
        }
    }
}
