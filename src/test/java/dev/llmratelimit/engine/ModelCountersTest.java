package dev.llmratelimit.engine;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The window rule of a snapshot: live, ended but still sliding, or gone. */
class ModelCountersTest {

    private static GroupWindow plan(boolean sliding) {
        return GroupWindow.rolling(60_000, sliding);
    }

    private static final CounterGroup MODEL = new CounterGroup(GroupKind.MODEL, "m", "", plan(false),
            new Limits(100, 1000, Limits.NONE, Limits.NONE), Enforcement.ALWAYS, new Increments(1, 0, 0, false));

    private static final long[] STORED = {40, 400, 10, 100, 30, 300};
    private static final long[] PREVIOUS = {60, 600, 20, 200, 40, 400};

    @Test
    void aLiveFixedWindowCountsAsStored() {
        ModelCounters counters = ModelCounters.read(plan(false), 100_000, 70_000, STORED, PREVIOUS);
        assertThat(counters).isEqualTo(new ModelCounters(40, 400, new long[] {10, 30}, new long[] {100, 300}, 30_000));
        assertThat(new ModelGroups(MODEL, java.util.List.of()).saturation(counters)).isEqualTo(0.4);
    }

    @Test
    void aLiveSlidingWindowAddsThePreviousWeightedByItsOverlap() {
        // 15 s of 60 left: ceil(previous / 4)
        ModelCounters counters = ModelCounters.read(plan(true), 100_000, 85_000, STORED, PREVIOUS);
        assertThat(counters).isEqualTo(new ModelCounters(40 + 15, 400 + 150, new long[] {10 + 5, 30 + 10},
                new long[] {100 + 50, 300 + 100}, 15_000));
    }

    @Test
    void anEndedSlidingWindowBecomesThePreviousOfTheNext() {
        // 20 s into the next window: 40 s of the ended one still overlap
        ModelCounters counters = ModelCounters.read(plan(true), 100_000, 120_000, STORED, PREVIOUS);
        assertThat(counters).isEqualTo(new ModelCounters(27, 267, new long[] {7, 20}, new long[] {67, 200}, 40_000));
    }

    @Test
    void anEndedFixedWindowAndAnAbsentOneAreIdle() {
        assertThat(ModelCounters.read(plan(false), 100_000, 100_000, STORED, PREVIOUS)).isEqualTo(ModelCounters.idle(2));
        assertThat(ModelCounters.read(plan(true), 100_000, 160_000, STORED, PREVIOUS)).isEqualTo(ModelCounters.idle(2));
        assertThat(ModelCounters.read(plan(true), Long.MIN_VALUE, 5, STORED, PREVIOUS)).isEqualTo(ModelCounters.idle(2));
    }
}
