package dev.llmratelimit.servlet;

import dev.llmratelimit.chat.ChatRequest;
import dev.llmratelimit.http.ErrorResponse;
import dev.llmratelimit.wait.WaitRoom;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * A refused request waiting for capacity without holding a container thread: the request is put in
 * asynchronous mode and enters the {@link WaitRoom}; once a decision admits it, it is dispatched
 * again to its own URI, where the filter (mapped for {@code ASYNC} dispatches) runs it like any
 * admitted request. When its time is up it gets the refusal it would have had. A client that goes
 * away while waiting leaves the room and counts nothing.
 */
final class WaitingRequest implements WaitRoom.Waiter, AsyncListener {

    /** Request attribute holding the {@link Resumed} call of an admitted waiter, for the ASYNC dispatch. */
    static final String RESUMED = WaitingRequest.class.getName() + ".RESUMED";

    static final String WAITED_HEADER = "x-ratelimit-waited-ms";

    private static final System.Logger LOG = System.getLogger(WaitingRequest.class.getName());

    /** What the filter needs to run the admitted request in its ASYNC dispatch. */
    record Resumed(ModelChoice choice, ChatRequest chat, byte[] body, byte[] json, long waitedMillis) {
    }

    private enum State { WAITING, ADMITTED, ANSWERED, GONE }

    private final HttpServletRequest request;
    private final HttpServletResponse response;
    private final ChatRequest chat;
    private final byte[] body;
    private final byte[] json;
    private final Supplier<ModelChoice> decideAgain;
    private final int rank;
    private final Clock clock;
    private final long startedAt;
    private final long deadline;
    private final AtomicReference<State> state = new AtomicReference<>(State.WAITING);
    private volatile ModelChoice lastRefusal;
    private volatile AsyncContext async;
    private volatile WaitRoom.Ticket ticket;

    private WaitingRequest(HttpServletRequest request, HttpServletResponse response, ChatRequest chat, byte[] body,
                           byte[] json, ModelChoice refusal, Supplier<ModelChoice> decideAgain, int rank,
                           Clock clock, long maxWaitMillis) {
        this.request = request;
        this.response = response;
        this.chat = chat;
        this.body = body;
        this.json = json;
        this.lastRefusal = refusal;
        this.decideAgain = decideAgain;
        this.rank = rank;
        this.clock = clock;
        this.startedAt = clock.millis();
        this.deadline = startedAt + maxWaitMillis;
    }

    /**
     * Puts the refused request in the room; {@code false} when the room is full (the caller answers
     * the refusal at once).
     */
    static boolean start(WaitRoom room, HttpServletRequest request, HttpServletResponse response, ChatRequest chat,
                         byte[] body, byte[] json, ModelChoice refusal, Supplier<ModelChoice> decideAgain, int rank,
                         Clock clock, long maxWaitMillis) {
        WaitingRequest waiting = new WaitingRequest(request, response, chat, body, json, refusal, decideAgain, rank,
                clock, maxWaitMillis);
        AsyncContext async = request.startAsync();
        async.setTimeout(maxWaitMillis + 30_000);
        async.addListener(waiting);
        waiting.async = async;
        WaitRoom.Ticket ticket = room.enter(waiting, refusal.clearsInMillis());
        if (ticket == null) {
            waiting.state.set(State.ANSWERED);
            waiting.answerRefusal(false);
            return true;
        }
        waiting.ticket = ticket;
        return true;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public long deadlineMillis() {
        return deadline;
    }

    @Override
    public WaitRoom.Refusal attempt() {
        if (state.get() != State.WAITING) {
            return null;
        }
        ModelChoice choice = decideAgain.get();
        if (!choice.permitsCall()) {
            lastRefusal = choice;
            return new WaitRoom.Refusal(choice.refusingGroup(), choice.clearsInMillis());
        }
        if (!state.compareAndSet(State.WAITING, State.ADMITTED)) {
            choice.admission().abort();
            return null;
        }
        request.setAttribute(RESUMED, new Resumed(choice, chat, body, json, clock.millis() - startedAt));
        async.dispatch();
        return null;
    }

    @Override
    public void expire() {
        if (state.compareAndSet(State.WAITING, State.ANSWERED)) {
            answerRefusal(true);
        }
    }

    private void answerRefusal(boolean waited) {
        try {
            ErrorResponse refusal = ErrorResponse.refusal(lastRefusal.admission());
            if (waited) {
                Map<String, String> headers = new LinkedHashMap<>(refusal.headers());
                headers.put(WAITED_HEADER, Long.toString(clock.millis() - startedAt));
                refusal = new ErrorResponse(refusal.status(), headers, refusal.type(), refusal.code(), refusal.message());
            }
            JsonErrors.write(response, refusal);
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "Could not answer a request whose wait ended", e);
        } finally {
            async.complete();
        }
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        if (ticket != null) {
            ticket.leave();
        }
        expire();
    }

    @Override
    public void onError(AsyncEvent event) {
        if (state.compareAndSet(State.WAITING, State.GONE) && ticket != null) {
            ticket.leave();
        }
    }

    @Override
    public void onComplete(AsyncEvent event) {
        if (state.compareAndSet(State.WAITING, State.GONE) && ticket != null) {
            ticket.leave();
        }
        if (request.getAttribute(RESUMED) instanceof Resumed unclaimed) {
            request.removeAttribute(RESUMED);
            unclaimed.choice().admission().abort();
            LOG.log(System.Logger.Level.WARNING, "A request admitted after waiting was not run: map the "
                    + "llm-ratelimit filter for ASYNC dispatches (dispatcher REQUEST and ASYNC)");
        }
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
    }
}
