package dev.llmratelimit.store.memory;

import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.Enforcement;
import dev.llmratelimit.engine.GroupKind;
import dev.llmratelimit.engine.GroupWindow;
import dev.llmratelimit.engine.Increments;
import dev.llmratelimit.engine.Limits;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.Settlement;
import dev.llmratelimit.engine.UsageCost;
import dev.llmratelimit.store.AdmissionStoreContract;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.testsupport.Plans;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.assertj.core.api.Assertions.assertThat;

class MemoryAdmissionStoreContractTest extends AdmissionStoreContract {

    private final MutableClock clock = new MutableClock();

    @Override
    protected AdmissionStore createStore() {
        return new MemoryAdmissionStore(clock);
    }

    @Override
    protected Duration lease() {
        return Duration.ofMinutes(10);
    }

    @Override
    protected String rollingWindow() {
        return "60s";
    }

    @Override
    protected void passWindow(Duration window) {
        clock.advance(window);
    }

    @Override
    protected void pass(Duration duration) {
        clock.advance(duration);
    }

    private static Plan keyPlan(String requestId, String id, long rpm, long parallel) {
        CounterGroup key = new CounterGroup(GroupKind.KEY, id, "", rpm > 0 ? GroupWindow.rolling(60_000, false) : GroupWindow.NONE,
                new Limits(rpm > 0 ? rpm : Limits.NONE, Limits.NONE, parallel > 0 ? parallel : Limits.NONE, Limits.NONE),
                Enforcement.ALWAYS, new Increments(rpm > 0 ? 1 : 0, 0, 0, parallel > 0));
        return new Plan(requestId, "m", "default", List.of(key), 600_000, UsageCost.FREE);
    }

    @Test
    void cellsOfPastWindowsWithoutSlotsAreDropped() {
        MemoryAdmissionStore store = new MemoryAdmissionStore(clock);
        store.decide(keyPlan("holder", "holder", 0, 1));
        for (int i = 0; i < 100; i++) {
            Plan plan = keyPlan("k" + i, "k" + i, 10, 0);
            store.decide(plan);
            store.settle(plan, Settlement.of(0, 0));
        }
        assertThat(store.size()).isEqualTo(101);
        clock.advance(Duration.ofMinutes(1));

        for (int i = 0; i < MemoryAdmissionStore.SWEEP_EVERY - 101; i++) {
            Plan plan = keyPlan("busy" + i, "busy", 1_000_000, 0);
            store.decide(plan);
            store.settle(plan, Settlement.of(0, 0));
        }

        assertThat(store.size()).isEqualTo(2);                               // the live slot's holder and "busy"
    }

    /**
     * Keys moving at random between teams on eight threads, their cells made in every order under
     * the model's lock: every team is held to exactly its limit, no key beyond its own.
     */
    @Test
    void keysMovingBetweenTeamsAreCountedExactlyUnderSharedLocks() throws Exception {
        int keys = 16;
        int teams = 3;
        AtomicLongArray byKey = new AtomicLongArray(keys);
        AtomicLongArray byTeam = new AtomicLongArray(teams);
        MemoryAdmissionStore store = new MemoryAdmissionStore(clock);
        onEightThreads(1_500, keys, teams, (random, key, team) -> {
            Plan plan = Plans.modelPlan("m", "default", 0, 0, 0, 0, false, 1.0, 60_000, false, 0,
                    Plans.caller(GroupKind.KEY, "k" + key, 50, 0, 0, 60_000),
                    Plans.caller(GroupKind.TEAM, "t" + team, 200, 0, 0, 60_000));
            if (store.decide(plan).admitted()) {
                byKey.incrementAndGet(key);
                byTeam.incrementAndGet(team);
            }
            store.settle(plan, Settlement.of(0, 0));
        });

        for (int team = 0; team < teams; team++) {
            assertThat(byTeam.get(team)).as("team %d", team).isEqualTo(200);
        }
        for (int key = 0; key < keys; key++) {
            assertThat(byKey.get(key)).as("key %d", key).isLessThanOrEqualTo(50);
        }
    }

    /** One step of a thread: a random key of {@code keys} and team of {@code teams}, and the thread's random. */
    private interface Step {
        void take(Random random, int key, int team);
    }

    /** Runs {@code step} {@code steps} times on each of eight threads, each with its own seeded random. */
    private static void onEightThreads(int steps, int keys, int teams, Step step) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(8);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            Random random = new Random(t);
            done.add(threads.submit(() -> {
                for (int i = 0; i < steps; i++) {
                    step.take(random, random.nextInt(keys), random.nextInt(teams));
                }
            }));
        }
        try {
            for (Future<?> future : done) {
                future.get(120, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    /**
     * Cells that a sweep drops and another model's request makes again under its own lock: keys and
     * teams holding parallel slots, used with four models and without one, on eight threads, while
     * idle slot cells are swept every few thousand decisions and settlements lock only the slot
     * cells. No key ever holds two slots nor a team four, nothing deadlocks, and once every call
     * settled each key has exactly its one slot and each team its three.
     */
    @Test
    void slotsHoldAcrossModelsWhileSweptCellsAreMadeAgainUnderOtherLocks() throws Exception {
        MemoryAdmissionStore store = new MemoryAdmissionStore(clock);
        int keys = 12;
        int teams = 3;
        AtomicIntegerArray keyHolds = new AtomicIntegerArray(keys);
        AtomicIntegerArray teamHolds = new AtomicIntegerArray(teams);
        AtomicIntegerArray mostByKey = new AtomicIntegerArray(keys);
        AtomicIntegerArray mostByTeam = new AtomicIntegerArray(teams);
        onEightThreads(20_000, keys, teams, (random, key, team) -> {
            Plan plan = slotPlan(random.nextInt(5), key, team);
            if (store.decide(plan).admitted()) {
                mostByKey.accumulateAndGet(key, keyHolds.incrementAndGet(key), Math::max);
                mostByTeam.accumulateAndGet(team, teamHolds.incrementAndGet(team), Math::max);
                Thread.yield();
                keyHolds.decrementAndGet(key);
                teamHolds.decrementAndGet(team);
            }
            store.settle(plan, Settlement.of(0, 0));
        });

        for (int key = 0; key < keys; key++) {
            assertThat(mostByKey.get(key)).as("most slots key %d held", key).isEqualTo(1);
            int keyFree = key;
            assertThat(admittedOf(store, 3, () -> slotPlan(keyFree % 5, keyFree, keyFree % teams)))
                    .as("slots of key %d", key).isEqualTo(1);
        }
        for (int team = 0; team < teams; team++) {
            assertThat(mostByTeam.get(team)).as("most slots team %d held", team).isLessThanOrEqualTo(3);
            int teamFree = team;
            int[] next = {100};
            assertThat(admittedOf(store, 5, () -> slotPlan(teamFree, next[0]++, teamFree)))
                    .as("slots of team %d", team).isEqualTo(3);
        }
    }

    /** One slot per key, three per team; model {@code model} of four, or none for 4. */
    private static Plan slotPlan(int model, int key, int team) {
        CounterGroup keySlot = Plans.caller(GroupKind.KEY, "k" + key, 0, 0, 1, 60_000);
        CounterGroup teamSlots = Plans.caller(GroupKind.TEAM, "t" + team, 0, 0, 3, 60_000);
        return model == 4 ? new Plan(Plans.newRequestId(), "m", "default", List.of(keySlot, teamSlots), 600_000, UsageCost.FREE)
                : Plans.modelPlan("m" + model, "default", 0, 0, 0, 0, false, 1.0, 60_000, false, 0, keySlot, teamSlots);
    }

    /** How many of {@code tries} plans are admitted when none is settled; settles them afterwards. */
    private static int admittedOf(MemoryAdmissionStore store, int tries, java.util.function.Supplier<Plan> plans) {
        List<Plan> admitted = new ArrayList<>();
        for (int i = 0; i < tries; i++) {
            Plan plan = plans.get();
            if (store.decide(plan).admitted()) {
                admitted.add(plan);
            }
        }
        admitted.forEach(plan -> store.settle(plan, Settlement.of(0, 0)));
        return admitted.size();
    }
}
