package dev.llmratelimit.engine;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The window rule of a snapshot (live, ended but still sliding, or gone) and the saturation over every window. */
class WindowCountersTest {

    private static GroupWindow window(boolean sliding) {
        return GroupWindow.rolling(60_000, sliding);
    }

    private static final Increments ONE_REQUEST = new Increments(1, 0, 0, false);

    /** requests, tokens, input, output tokens of the model, then of two pools. */
    private static final long[] STORED = {40, 400, 4, 8, 10, 100, 1, 2, 30, 300, 3, 6};
    private static final long[] PREVIOUS = {60, 600, 8, 12, 20, 200, 4, 4, 40, 400, 4, 8};

    @Test
    void aLiveFixedWindowCountsAsStored() {
        WindowCounters counters = WindowCounters.read(window(false), 100_000, 70_000, STORED, PREVIOUS);
        assertThat(counters).isEqualTo(new WindowCounters(new long[] {40, 400, 4, 8},
                new long[][] {{10, 100, 1, 2}, {30, 300, 3, 6}}, 30_000));
        assertThat(counters.of(Dimension.OUTPUT_TOKENS)).isEqualTo(8);
        assertThat(counters.pool(1, Dimension.INPUT_TOKENS)).isEqualTo(3);
    }

    @Test
    void aLiveSlidingWindowAddsThePreviousWeightedByItsOverlap() {
        // 15 s of 60 left: ceil(previous / 4)
        WindowCounters counters = WindowCounters.read(window(true), 100_000, 85_000, STORED, PREVIOUS);
        assertThat(counters).isEqualTo(new WindowCounters(new long[] {40 + 15, 400 + 150, 4 + 2, 8 + 3},
                new long[][] {{10 + 5, 100 + 50, 1 + 1, 2 + 1}, {30 + 10, 300 + 100, 3 + 1, 6 + 2}}, 15_000));
    }

    @Test
    void anEndedSlidingWindowBecomesThePreviousOfTheNext() {
        // 20 s into the next window: 40 s of the ended one still overlap, ceil(stored * 2 / 3)
        WindowCounters counters = WindowCounters.read(window(true), 100_000, 120_000, STORED, PREVIOUS);
        assertThat(counters).isEqualTo(new WindowCounters(new long[] {27, 267, 3, 6},
                new long[][] {{7, 67, 1, 2}, {20, 200, 2, 4}}, 40_000));
    }

    @Test
    void anEndedFixedWindowAndAnAbsentOneAreIdle() {
        assertThat(WindowCounters.read(window(false), 100_000, 100_000, STORED, PREVIOUS)).isEqualTo(WindowCounters.idle(2));
        assertThat(WindowCounters.read(window(true), 100_000, 160_000, STORED, PREVIOUS)).isEqualTo(WindowCounters.idle(2));
        assertThat(WindowCounters.read(window(true), Long.MIN_VALUE, 5, STORED, PREVIOUS)).isEqualTo(WindowCounters.idle(2));
    }

    @Test
    void theSaturationIsTheHighestUseOfAnyLimitInAnyWindowAsTheDecisionComputesIt() {
        CounterGroup minute = new CounterGroup(GroupKind.MODEL, "m", "", window(false),
                new Limits(new long[] {100, Limits.NONE, 1000, 20}, Limits.NONE, Limits.NONE), Enforcement.ALWAYS, ONE_REQUEST);
        CounterGroup day = new CounterGroup(GroupKind.MODEL, "m", "", GroupWindow.rolling(86_400_000, false, "86400000"),
                new Limits(new long[] {500, 10_000, Limits.NONE, Limits.NONE}, Limits.NONE, Limits.NONE), Enforcement.ALWAYS,
                ONE_REQUEST);
        ModelGroups groups = new ModelGroups("m", List.of(new ModelGroups.Window(minute, List.of()),
                new ModelGroups.Window(day, List.of())));
        WindowCounters minuteCounts = new WindowCounters(new long[] {40, 900, 300, 12}, new long[0][], 30_000);
        // output tokens per minute: 12 / 20
        assertThat(groups.saturation(new ModelCounters(List.of(minuteCounts,
                new WindowCounters(new long[] {250, 5_500, 0, 0}, new long[0][], 3_600_000))))).isEqualTo(0.6);
        // requests per day: 450 / 500 (tokens per minute is not limited, so its 900 does not count)
        ModelCounters counters = new ModelCounters(List.of(minuteCounts,
                new WindowCounters(new long[] {450, 5_500, 0, 0}, new long[0][], 3_600_000)));
        assertThat(groups.saturation(counters)).isEqualTo(0.9);
        GroupCounts[] decisionCounts = {minuteCounts.asCounts(), counters.window(1).asCounts()};
        Plan plan = new Plan("r", "m", "default", List.of(minute, day), 1000, null);
        assertThat(PlanRule.saturation(plan, decisionCounts)).isEqualTo(0.9);
    }
}
