package dev.llmratelimit.interceptor;

import dev.llmratelimit.config.RateLimitContext;
import dev.llmratelimit.demo.EmbeddedTomcat;
import jakarta.enterprise.inject.spi.CDI;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A refused {@code @RateLimited} call waits for capacity (docs/instead-of-429.md), in real time with a 2 s
 * window: a plain method blocks its caller, a method returning a {@link CompletionStage} returns at
 * once and runs when admitted.
 */
class InterceptorWaitingTest {

    private static EmbeddedTomcat tomcat;

    @BeforeAll
    static void start() throws Exception {
        System.setProperty("llm.ratelimit.window", "2s");
        System.setProperty("llm.ratelimit.models.waits.rpm", "1");
        System.setProperty("llm.ratelimit.models.impatient.rpm", "1");
        System.setProperty("llm.ratelimit.max-wait", "5s");
        System.setProperty("llm.ratelimit.models.impatient.max-wait", "200ms");
        tomcat = new EmbeddedTomcat(0);
        tomcat.context().addApplicationListener("org.jboss.weld.environment.servlet.Listener");
        tomcat.start();
    }

    @AfterAll
    static void stop() throws Exception {
        tomcat.close();
    }

    @BeforeEach
    void resetCalls() {
        WaitingChatService.CALLS.set(0);
    }

    private static WaitingChatService service() {
        return CDI.current().select(WaitingChatService.class).get();
    }

    private static int waiters() {
        return CDI.current().select(RateLimitContext.class).get().runtime().waitRoom().waiters();
    }

    @Test
    void aBlockingCallWaitsForTheNextWindow() {
        WaitingChatService service = service();
        service.complete(new ChatService.Prompt("waits", "first"));
        ChatService.Completion second = service.complete(new ChatService.Prompt("waits", "second"));
        assertThat(second.text()).isEqualTo("Hello");
        assertThat(WaitingChatService.CALLS).hasValue(2);
        assertThat(waiters()).isZero();
    }

    @Test
    void anAsynchronousCallReturnsAtOnceAndRunsWhenAdmitted() throws Exception {
        WaitingChatService service = service();
        service.complete(new ChatService.Prompt("waits", "fill the window"));
        CompletionStage<ChatService.Completion> later = service.completeLater(new ChatService.Prompt("waits", "later"));
        assertThat(WaitingChatService.CALLS).hasValue(1);
        assertThat(waiters()).isEqualTo(1);
        assertThat(later.toCompletableFuture().get(10, TimeUnit.SECONDS).text()).isEqualTo("Later");
        assertThat(WaitingChatService.CALLS).hasValue(2);
    }

    @Test
    void aWaitThatEndsInRefusalThrowsTheRefusal() {
        WaitingChatService service = service();
        service.complete(new ChatService.Prompt("impatient", "first"));
        assertThatThrownBy(() -> service.complete(new ChatService.Prompt("impatient", "second")))
                .isInstanceOf(RateLimitExceededException.class)
                .hasMessageStartingWith("Model capacity reached for impatient.");
        CompletionStage<ChatService.Completion> later = service.completeLater(new ChatService.Prompt("impatient", "x"));
        assertThatThrownBy(() -> later.toCompletableFuture().get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(RateLimitExceededException.class);
        assertThat(WaitingChatService.CALLS).hasValue(1);
    }

    /** The limiter fails on the call (the application's resolver throws): 503 by default, and the method never runs. */
    @Test
    void aCallTheLimiterFailsOnIsRefusedWith503AndNeverRuns() {
        TestPrincipals.CURRENT.set(() -> "broken");
        try {
            assertThatThrownBy(() -> service().complete(new ChatService.Prompt("waits", "x")))
                    .isInstanceOfSatisfying(RateLimitRefusalException.class, refusal -> {
                        assertThat(refusal.status()).isEqualTo(503);
                        assertThat(refusal.outcome()).isNull();
                        assertThat(refusal.errorResponse().headers()).containsEntry("retry-after", "1");
                        assertThat(refusal.errorResponse().body()).isEqualTo("{\"error\":{\"message\":\"The rate limiter"
                                + " failed on this request; try again shortly\",\"type\":\"service_unavailable\","
                                + "\"param\":null,\"code\":\"rate_limiter_error\"}}");
                    });
            assertThatThrownBy(() -> service().completeLater(new ChatService.Prompt("waits", "x")))
                    .isInstanceOf(RateLimitRefusalException.class);
            assertThat(WaitingChatService.CALLS).hasValue(0);
        } finally {
            TestPrincipals.CURRENT.remove();
        }
    }
}
