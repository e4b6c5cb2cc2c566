package dev.llmratelimit.wait;

import dev.llmratelimit.testsupport.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The room's order and timing on a clock the test moves; passes run when the test says so. */
class WaitRoomTest {

    private final MutableClock clock = new MutableClock();
    /** Never runs a pass by itself: the test calls {@link WaitRoom#pass()}. */
    private final ScheduledExecutorService idle = Executors.newSingleThreadScheduledExecutor();
    private final WaitRoom room = new WaitRoom(clock, 3, Duration.ofMillis(250), idle);

    /** A shared capacity of whole requests that waiters take when they are decided. */
    private final AtomicInteger capacity = new AtomicInteger();
    private final AtomicInteger decisions = new AtomicInteger();
    private final List<String> admitted = new ArrayList<>();
    private final List<String> expired = new ArrayList<>();
    private final List<String> failed = new ArrayList<>();
    private final long start = clock.millis();
    /** Per waiter, the milliseconds since the start at its last decision. */
    private final Map<String, Long> decidedAt = new HashMap<>();

    @AfterEach
    void stop() {
        idle.shutdownNow();
    }

    private WaitRoom.Waiter waiter(String name, int rank, long maxWaitMillis, String group) {
        return waiter(name, rank, maxWaitMillis, group, Long.MIN_VALUE, 0);
    }

    /**
     * @param opensAt        when the capacity becomes usable (a window rolls); refusals before say they clear then
     * @param decisionMillis how long a refused decision takes on the clock
     */
    private WaitRoom.Waiter waiter(String name, int rank, long maxWaitMillis, String group, long opensAt,
                                   long decisionMillis) {
        long deadline = clock.millis() + maxWaitMillis;
        return new WaitRoom.Waiter() {
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
                decisions.incrementAndGet();
                long now = clock.millis();
                decidedAt.put(name, now - start);
                if (now >= opensAt && capacity.get() > 0) {
                    capacity.decrementAndGet();
                    admitted.add(name);
                    return null;
                }
                clock.advance(Duration.ofMillis(decisionMillis));
                return new WaitRoom.Refusal(group, now < opensAt ? opensAt - now : 1_000);
            }

            @Override
            public void expire() {
                expired.add(name);
            }

            @Override
            public void fail(RuntimeException failure) {
                failed.add(name + ": " + failure.getMessage());
            }
        };
    }

    @Test
    void higherRanksFirstThenFirstComeFirstServed() {
        room.enter(waiter("dev-1", 1, 5_000, "g"), 1_000);
        room.enter(waiter("prod-1", 0, 5_000, "g"), 1_000);
        room.enter(waiter("dev-2", 1, 5_000, "g"), 1_000);
        capacity.set(2);
        room.pass();
        assertThat(admitted).containsExactly("prod-1", "dev-1");
        capacity.set(1);
        room.pass();
        assertThat(admitted).containsExactly("prod-1", "dev-1", "dev-2");
        assertThat(room.waiters()).isZero();
    }

    @Test
    void aFullRoomTurnsTheNextRequestAway() {
        for (int i = 0; i < 3; i++) {
            assertThat(room.enter(waiter("w" + i, 0, 5_000, "g"), 1_000)).isNotNull();
        }
        assertThat(room.enter(waiter("w3", 0, 5_000, "g"), 1_000)).isNull();
        assertThat(room.waiters()).isEqualTo(3);
    }

    @Test
    void aWaiterWhoseTimeIsUpIsDecidedOnceMoreThenGetsItsRefusal() {
        room.enter(waiter("short", 0, 1_000, "g"), 1_000);
        room.enter(waiter("long", 0, 5_000, "g"), 1_000);
        room.pass();
        clock.advance(Duration.ofMillis(1_000));
        int before = decisions.get();
        room.pass();
        assertThat(expired).containsExactly("short");
        assertThat(decisions.get() - before).isEqualTo(2);
        capacity.set(5);
        room.pass();
        assertThat(admitted).containsExactly("long");
        assertThat(expired).containsExactly("short");
    }

    @Test
    void aGroupStillFullIsAskedOncePerPass() {
        room.enter(waiter("a1", 0, 5_000, "a"), 1_000);
        room.enter(waiter("a2", 0, 5_000, "a"), 1_000);
        room.enter(waiter("b1", 0, 5_000, "b"), 1_000);
        room.pass();                                  // first decisions: everyone is asked once
        assertThat(decisions.get()).isEqualTo(3);
        room.pass();                                  // a1 still refused by "a": a2 is not asked; b1 is
        assertThat(decisions.get()).isEqualTo(5);
    }

    @Test
    void aWaiterWhoLeftIsNeitherDecidedNorAnswered() {
        WaitRoom.Ticket ticket = room.enter(waiter("gone", 0, 5_000, "g"), 1_000);
        ticket.leave();
        capacity.set(1);
        room.pass();
        clock.advance(Duration.ofSeconds(10));
        room.pass();
        assertThat(admitted).isEmpty();
        assertThat(expired).isEmpty();
        assertThat(decisions.get()).isZero();
        assertThat(room.waiters()).isZero();
    }

    @Test
    void closingAnswersEveryoneStillWaiting() {
        room.enter(waiter("w1", 0, 5_000, "g"), 1_000);
        room.enter(waiter("w2", 1, 5_000, "g"), 1_000);
        room.close();
        assertThat(expired).containsExactly("w1", "w2");
    }

    /**
     * A waiter that later waiters of its group were not asked for in the passes before answers, at
     * its deadline, the refusal of a decision made then: its retry-after and reset headers count from
     * that moment, not from when it came in (docs/errors.md).
     */
    @Test
    void aWaiterAnswersTheRefusalOfItsDeadlineNotOfItsArrival() {
        room.enter(waiter("first", 0, 1_000, "g"), 1_000);
        room.enter(waiter("second", 0, 1_000, "g"), 1_000);
        room.pass();
        clock.advance(Duration.ofMillis(600));
        room.pass();                                  // "g" refuses "first": "second" is not asked
        assertThat(decidedAt).containsEntry("first", 600L).containsEntry("second", 0L);
        clock.advance(Duration.ofMillis(400));
        room.pass();
        assertThat(expired).containsExactly("first", "second");
        assertThat(decidedAt).containsEntry("first", 1_000L).containsEntry("second", 1_000L);
    }

    @Test
    void aWaiterThatFitsAtItsDeadlineIsAdmitted() {
        room.enter(waiter("w", 0, 1_000, "g"), 1_000);
        room.pass();
        clock.advance(Duration.ofMillis(1_000));
        capacity.set(1);
        room.pass();
        assertThat(admitted).containsExactly("w");
        assertThat(expired).isEmpty();
        assertThat(room.waiters()).isZero();
    }

    /**
     * The window rolls while the pass decides: the higher rank was refused just before the roll (its
     * pool's group), the lower rank would be admitted just after it (another group). The slot the
     * roll freed goes to the higher rank in a new pass (which the room runs at once), not to the lower one.
     */
    @Test
    void aWindowRollingDuringAPassServesTheHigherRankFirst() throws InterruptedException {
        long rollAt = clock.millis() + 1_000;
        capacity.set(1);
        room.enter(waiter("dev", 1, 5_000, "dev-pool", rollAt, 0), 1_000);
        room.enter(waiter("prod", 0, 5_000, "prod-pool", rollAt, 2), 1_000);
        clock.advance(Duration.ofMillis(999));
        room.pass();                                  // prod refused at 999, clearing at 1000; the pass is then at 1001
        for (int i = 0; i < 500 && room.waiters() == 2; i++) {
            Thread.sleep(10);
        }
        assertThat(room.waiters()).isEqualTo(1);
        assertThat(admitted).containsExactly("prod");
    }

    /** A decision that throws is a bug of the limiter: the waiter is told so (its entry point answers it), not refused. */
    @Test
    void aWaiterWhoseDecisionFailsLeavesAndIsToldOfTheFailure() {
        WaitRoom.Waiter broken = new WaitRoom.Waiter() {
            @Override
            public int rank() {
                return 0;
            }

            @Override
            public long deadlineMillis() {
                return clock.millis() + 5_000;
            }

            @Override
            public WaitRoom.Refusal attempt() {
                throw new IllegalStateException("decider bug");
            }

            @Override
            public void expire() {
                expired.add("broken");
            }

            @Override
            public void fail(RuntimeException failure) {
                failed.add("broken: " + failure.getMessage());
            }
        };
        room.enter(broken, 1_000);
        room.enter(waiter("fine", 1, 5_000, "g"), 1_000);
        capacity.set(1);
        room.pass();
        assertThat(failed).containsExactly("broken: decider bug");
        assertThat(expired).isEmpty();
        assertThat(admitted).containsExactly("fine");
        assertThat(room.waiters()).isZero();
    }
}
