package dev.llmratelimit.wait;

import dev.llmratelimit.testsupport.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** A waiting decision as the room sees it from its first moment on. */
class WaitingDecisionTest {

    /** Counts what admitting decisions took and what was given back. */
    private static final class Capacity implements WaitingDecision.Decider<Boolean> {
        final AtomicInteger decisions = new AtomicInteger();
        final AtomicInteger givenBack = new AtomicInteger();

        @Override
        public Boolean decide() {
            decisions.incrementAndGet();
            return Boolean.TRUE;                 // capacity came back: the next decision admits
        }

        @Override
        public boolean admits(Boolean decision) {
            return decision;
        }

        @Override
        public Object refusingGroup(Boolean decision) {
            return "g";
        }

        @Override
        public long clearsInMillis(Boolean decision) {
            return 0;
        }

        @Override
        public void giveBack(Boolean decision) {
            givenBack.incrementAndGet();
        }
    }

    /** Runs the first pass the room schedules at once, on the thread that enters: the earliest a pass can come. */
    private static final class PassAtOnce extends ScheduledThreadPoolExecutor {
        private boolean ran;

        PassAtOnce() {
            super(1);
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            if (!ran) {
                ran = true;
                command.run();
            }
            return super.schedule(() -> { }, delay, unit);
        }
    }

    /**
     * A pass may decide a waiter the moment it is in the room, before {@code enter} has returned:
     * the waiter must already know its place, or the admission that pass made is lost (never
     * given back, never run) and the request hangs until its asynchronous timeout.
     */
    @Test
    void aWaiterAdmittedByAPassThatRunsWhileItEntersGetsItsAdmission() throws Exception {
        MutableClock clock = new MutableClock();
        PassAtOnce timer = new PassAtOnce();
        try {
            WaitRoom room = new WaitRoom(clock, 10, Duration.ofMillis(250), timer);
            Capacity capacity = new Capacity();
            WaitingDecision<Boolean> waiting = WaitingDecision.enter(room, Boolean.FALSE, capacity, 0, clock, 5_000);

            assertThat(waiting).isNotNull();
            assertThat(capacity.decisions).hasValue(1);
            assertThat(waiting.outcome()).isCompletedWithValue(Boolean.TRUE);
            assertThat(capacity.givenBack).hasValue(0);
            assertThat(room.waiters()).isZero();
        } finally {
            timer.shutdownNow();
        }
    }
}
