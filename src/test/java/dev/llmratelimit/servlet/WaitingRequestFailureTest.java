package dev.llmratelimit.servlet;

import dev.llmratelimit.chat.ChatRequest;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.demo.EmbeddedTomcat;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.CallerCounter;
import dev.llmratelimit.engine.CallerPlan;
import dev.llmratelimit.engine.CallerScope;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.http.ErrorStyle;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.Http;
import dev.llmratelimit.wait.WaitRoom;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static dev.llmratelimit.testsupport.Policies.policy;
import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A waiting request whose decision again fails (a bug, here a decider that throws) in a real
 * container: it is answered as {@code on-internal-error} says (503, or served unlimited through the
 * filter's ASYNC dispatch), never left hanging until its asynchronous timeout and never given the
 * old refusal as if nothing had happened.
 */
class WaitingRequestFailureTest {

    private final RateLimitRuntime runtime = RateLimitRuntime.create(properties("models.m.rpm=1"), null);
    private final WaitRoom room = new WaitRoom(Clock.systemUTC(), 10, Duration.ofMillis(20));
    private final List<String> failures = new CopyOnWriteArrayList<>();
    private EmbeddedTomcat tomcat;

    @AfterEach
    void stop() throws Exception {
        tomcat.close();
        room.close();
        runtime.close();
    }

    /** Puts every REQUEST in the room with a decider that throws; answers an ASYNC dispatch as the application. */
    private final class WaitingServlet extends HttpServlet {
        private final boolean failOpen;

        WaitingServlet(boolean failOpen) {
            this.failOpen = failOpen;
        }

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            byte[] body = request.getInputStream().readAllBytes();
            if (request.getDispatcherType() == DispatcherType.ASYNC) {
                response.setContentType("application/json");
                response.getOutputStream().write("{\"served\":true}".getBytes(StandardCharsets.UTF_8));
                return;
            }
            ChatRequest chat = parsed(body);
            Admission refused = refusedRequest();
            WaitingRequest.start(room, request, response, chat, body, new ModelChoice(refused, "m", null), () -> {
                throw new IllegalStateException("decider bug");
            }, new WaitingRequest.Place(0, 5_000, ""), Clock.systemUTC(), ErrorStyle.LITELLM, failure -> {
                failures.add(failure.getMessage());
                return failOpen;
            });
        }
    }

    private static ChatRequest parsed(byte[] body) {
        try {
            return ChatRequest.parse(body, body.length);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A request the model refuses: the one request of its window is taken first. */
    private Admission refusedRequest() {
        runtime.limiter().admit(AdmissionRequest.of("m", null, null));
        return runtime.limiter().admit(AdmissionRequest.of("m", null, null));
    }

    private Http start(boolean failOpen) throws Exception {
        tomcat = new EmbeddedTomcat(0)
                .filter("llm-ratelimit", new RateLimitFilter(runtime), "/*")
                .servlet("waiting", new WaitingServlet(failOpen), "/wait");
        return new Http(tomcat.start());
    }

    @Test
    void failClosedAnswers503() throws Exception {
        HttpResponse<String> answer = start(false).post("/wait", null, FilterServer.chat("m"));
        assertThat(answer.statusCode()).isEqualTo(503);
        assertThat(answer.body()).isEqualTo("{\"error\":{\"message\":\"The rate limiter failed on this request; try again"
                + " shortly\",\"type\":\"service_unavailable\",\"param\":null,\"code\":\"rate_limiter_error\"}}");
        assertThat(Http.header(answer, "retry-after")).isEqualTo("1");
        assertThat(Http.header(answer, "x-ratelimit-waited-ms")).isNotNull();
        assertThat(failures).containsExactly("decider bug");
        assertThat(room.waiters()).isZero();
    }

    @Test
    void failOpenServesTheRequestUnlimited() throws Exception {
        HttpResponse<String> answer = start(true).post("/wait", null, FilterServer.chat("m"));
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.body()).isEqualTo("{\"served\":true}");
        assertThat(Http.header(answer, "x-ratelimit-remaining-requests")).isNull();
        assertThat(failures).containsExactly("decider bug");
    }

    /**
     * The container refuses the ASYNC dispatch of a request admitted after waiting (here a wrapper
     * whose dispatch throws, as a request that already ended makes it): its admission is given back
     * once, so the caller's one parallel slot is free again, and the client is answered 503.
     */
    @Test
    void aRefusedDispatchGivesTheAdmissionBack() throws Exception {
        RateLimiter slots = new RateLimiter(policy("models.m.rpm=100"), new MemoryAdmissionStore());
        CallerPlan oneAtATime = new CallerPlan(List.of(new CallerCounter(CallerScope.KEY, "sk-1", 0, 0, 1)), 60_000, 600_000);
        HttpServlet servlet = new HttpServlet() {
            @Override
            protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
                byte[] body = request.getInputStream().readAllBytes();
                ChatRequest chat = parsed(body);
                Admission refused = refusedRequest();
                WaitingRequest.start(room, new NoDispatch(request), response, chat, body, new ModelChoice(refused, "m", null),
                        () -> new ModelChoice(slots.admit(AdmissionRequest.of("m", null, null).withCallers(oneAtATime)), "m", null),
                        new WaitingRequest.Place(0, 5_000, ""), Clock.systemUTC(), ErrorStyle.LITELLM, failure -> false);
            }
        };
        tomcat = new EmbeddedTomcat(0).servlet("waiting", servlet, "/wait");
        HttpResponse<String> answer = new Http(tomcat.start()).post("/wait", null, FilterServer.chat("m"));

        assertThat(answer.statusCode()).isEqualTo(503);
        assertThat(room.waiters()).isZero();
        Admission again = slots.admit(AdmissionRequest.of("m", null, null).withCallers(oneAtATime));
        assertThat(again.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(slots.admit(AdmissionRequest.of("m", null, null).withCallers(oneAtATime)).outcome())
                .isEqualTo(Admission.Outcome.REFUSED);
    }

    /** A request whose asynchronous context refuses to dispatch, as one that already ended does. */
    private static final class NoDispatch extends HttpServletRequestWrapper {
        NoDispatch(HttpServletRequest request) {
            super(request);
        }

        @Override
        public AsyncContext startAsync() {
            AsyncContext real = super.startAsync();
            return (AsyncContext) Proxy.newProxyInstance(AsyncContext.class.getClassLoader(), new Class<?>[] {AsyncContext.class},
                    (proxy, method, args) -> {
                        if (method.getName().equals("dispatch")) {
                            throw new IllegalStateException("the request already ended");
                        }
                        try {
                            return method.invoke(real, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }
    }
}
