package dev.llmratelimit.interceptor;

import dev.llmratelimit.config.RateLimitContext;
import dev.llmratelimit.demo.EmbeddedTomcat;
import jakarta.enterprise.inject.spi.CDI;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletionStage;
import java.util.function.IntSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The interceptor's waiting path (docs/instead-of-429.md) where it meets the one-admission
 * engine: whatever a waiter is admitted with must be given back exactly once, also when nobody is
 * there any more to run the call. Principal {@code zed} (the test resolver) has one parallel slot.
 */
class InterceptorAbandonedWaiterTest {

    private static EmbeddedTomcat tomcat;

    @BeforeAll
    static void start() throws Exception {
        System.setProperty("llm.ratelimit.window", "1s");
        System.setProperty("llm.ratelimit.models.waits.rpm", "1");
        System.setProperty("llm.ratelimit.models.free.rpm", "1000");
        System.setProperty("llm.ratelimit.models.free.max-wait", "300ms");
        System.setProperty("llm.ratelimit.max-wait", "5s");
        System.setProperty("llm.ratelimit.defaults.key.max-parallel-requests", "1");
        tomcat = new EmbeddedTomcat(0);
        tomcat.context().addApplicationListener("org.jboss.weld.environment.servlet.Listener");
        tomcat.start();
    }

    @AfterAll
    static void stop() throws Exception {
        tomcat.close();
    }

    @BeforeEach
    void asZed() {
        WaitingChatService.CALLS.set(0);
        TestPrincipals.CURRENT.set(() -> "zed");
    }

    @AfterEach
    void nobody() {
        TestPrincipals.CURRENT.remove();
    }

    private static int waiters() {
        return CDI.current().select(RateLimitContext.class).get().runtime().waitRoom().waiters();
    }

    private static void await(IntSupplier value, int expected) throws InterruptedException {
        for (int i = 0; i < 1_000 && value.getAsInt() != expected; i++) {
            Thread.sleep(10);
        }
        assertThat(value.getAsInt()).isEqualTo(expected);
    }

    /**
     * An asynchronous call that waits, and whose caller cancels the stage it got (a JAX-RS async
     * timeout, a client that went away, {@code orTimeout} on it): when capacity comes the room admits it,
     * taking zed's one slot, but the method never runs and nothing finishes the admission, so the slot
     * stays taken for the whole {@code parallel-lease} (10 minutes) and every later call of zed, on
     * any model, is refused by {@code key_parallel_requests}.
     */
    @Test
    void aCancelledAsynchronousWaiterGivesItsSlotBack() throws Exception {
        WaitingChatService service = CDI.current().select(WaitingChatService.class).get();
        service.complete(new ChatService.Prompt("waits", "fills the window; its slot is given back"));
        CompletionStage<ChatService.Completion> later = service.completeLater(new ChatService.Prompt("waits", "later"));
        assertThat(waiters()).isEqualTo(1);
        assertThat(later.toCompletableFuture().cancel(false)).isTrue();

        await(InterceptorAbandonedWaiterTest::waiters, 0);                // the next window admitted the waiter
        Thread.sleep(100);                                               // its (skipped) continuation has run
        assertThat(WaitingChatService.CALLS).hasValue(1);               // the cancelled call never ran ...

        ChatService.Completion next = service.complete(new ChatService.Prompt("free", "another model, same caller"));
        assertThat(next.text()).isEqualTo("Hello");                     // ... so it holds no slot of zed's
        assertThat(WaitingChatService.CALLS).hasValue(2);
    }
}
