package dev.llmratelimit.outbound;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

import dev.llmratelimit.testsupport.StartTogether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * What every outbound store does, memory and Redis alike. Time moves through {@link #advance}; a Redis
 * store also sees the few real milliseconds a test takes, hence {@link #tolerance()} on waits.
 */
public abstract class OutboundStoreContract {

    protected static final long HOUR = 3_600_000;
    private static final long LEASE = 600_000;

    /** The store under test (one instance of the application). */
    protected abstract OutboundStore store();

    /** Another instance on the same shared state (the memory store: the same one). */
    protected abstract OutboundStore anotherInstance();

    protected abstract void advance(Duration duration);

    /** How far a wait may differ from the figure computed on a still clock. */
    protected abstract long tolerance();

    private static final BucketKey KEY = new BucketKey("openai", "gpt-4o");

    private static BucketLimits limits(long rpm, long tpm, double burst) {
        return new BucketLimits(rpm, tpm, 1.0, burst);
    }

    private Grant acquire(BucketLimits limits, long tokens, long maxWait) {
        return acquire(store(), KEY, limits, UUID.randomUUID().toString(), tokens, maxWait);
    }

    private static Grant acquire(OutboundStore store, BucketKey key, BucketLimits limits, String id, long tokens, long maxWait) {
        return acquire(store, key, limits, id, input(tokens), maxWait);
    }

    private static Grant acquire(OutboundStore store, BucketKey key, BucketLimits limits, String id, Tokens tokens, long maxWait) {
        return store.acquire(key, limits, id, tokens, maxWait, LEASE).join();
    }

    private Grant acquire(BucketLimits limits, Tokens tokens, long maxWait) {
        return acquire(store(), KEY, limits, UUID.randomUUID().toString(), tokens, maxWait);
    }

    /** Tokens of a call whose split does not matter to a test: all input. */
    private static Tokens input(long tokens) {
        return new Tokens(tokens, 0);
    }

    @Test
    void callersQueueOneSecondApartAtSixtyRpmWithRoomForOne() {
        BucketLimits oneAtATime = limits(60, 0, 1.0 / 60);
        List<Long> waits = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Grant grant = acquire(oneAtATime, 0, HOUR);
            assertThat(grant.outcome()).isEqualTo(Grant.Outcome.TAKEN);
            waits.add(grant.waitMillis());
        }
        for (int i = 0; i < 10; i++) {
            assertThat(waits.get(i)).as("wait of caller %d", i).isCloseTo(i * 1000L, within(tolerance()));
        }
    }

    @Test
    void tokensRunOutBeforeRequestsWhenTokensAreTight() {
        BucketLimits limits = limits(600, 6000, 1.0);
        assertThat(acquire(limits, 4000, HOUR)).isEqualTo(Grant.taken(0));
        Grant second = acquire(limits, 4000, HOUR);
        // 2000 tokens left, 4000 wanted, refilled at 100 per second: 20 s, while 598 requests are free
        assertThat(second.outcome()).isEqualTo(Grant.Outcome.TAKEN);
        assertThat(second.waitMillis()).isCloseTo(20_000L, within(tolerance()));
    }

    @Test
    void burstIsTheCapacityInMinutesOfRefill() {
        BucketLimits twoMinutes = limits(6, 0, 2.0);
        for (int i = 0; i < 12; i++) {
            assertThat(acquire(twoMinutes, 0, 0)).as("call %d", i).isEqualTo(Grant.taken(0));
        }
        Grant thirteenth = acquire(twoMinutes, 0, 0);
        assertThat(thirteenth.outcome()).isEqualTo(Grant.Outcome.WAIT_TOO_LONG);
        assertThat(thirteenth.waitMillis()).isCloseTo(10_000L, within(tolerance()));
    }

    @Test
    void anEstimateAboveCapacityNeverFitsAndTakesNothing() {
        BucketLimits limits = new BucketLimits(60, 1000, 0.9, 1.0);
        assertThat(acquire(limits, 901, HOUR)).isEqualTo(Grant.neverFits(Dimension.TOKENS));
        assertThat(acquire(limits, 900, 0)).isEqualTo(Grant.taken(0));
    }

    @Test
    void aWaitBeyondMaxWaitTakesNothing() {
        BucketLimits oneAtATime = limits(60, 0, 1.0 / 60);
        assertThat(acquire(oneAtATime, 0, 0)).isEqualTo(Grant.taken(0));
        Grant refused = acquire(oneAtATime, 0, 500);
        assertThat(refused.outcome()).isEqualTo(Grant.Outcome.WAIT_TOO_LONG);
        assertThat(refused.waitMillis()).isCloseTo(1000L, within(tolerance()));
        advance(Duration.ofSeconds(1));
        assertThat(acquire(oneAtATime, 0, 0)).isEqualTo(Grant.taken(0));
    }

    @Test
    void settlingGivesBackTheUnusedEstimateAndChargesTheExcess() {
        BucketLimits limits = limits(600, 6000, 1.0);
        String first = UUID.randomUUID().toString();
        acquire(store(), KEY, limits, first, 3000, HOUR);
        assertThat(store().settle(KEY, limits, first, input(1000), false).join()).isTrue();
        // 6000 - 1000 used: 5000 free
        assertThat(acquire(limits, 5000, 0)).isEqualTo(Grant.taken(0));

        advance(Duration.ofMinutes(1));
        String second = UUID.randomUUID().toString();
        acquire(store(), KEY, limits, second, 1000, HOUR);
        assertThat(store().settle(KEY, limits, second, input(4000), false).join()).isTrue();
        // 6000 - 4000 used: 2000 free, 3000 wanted: 1000 more at 100 per second
        Grant third = acquire(limits, 3000, HOUR);
        assertThat(third.waitMillis()).isCloseTo(10_000L, within(tolerance()));
    }

    @Test
    void aPermitSettlesOnceAndAnUnknownOneNotAtAll() {
        BucketLimits limits = limits(600, 6000, 1.0);
        String id = UUID.randomUUID().toString();
        acquire(store(), KEY, limits, id, 3000, HOUR);
        assertThat(store().settle(KEY, limits, id, input(0), false).join()).isTrue();
        assertThat(store().settle(KEY, limits, id, input(0), true).join()).isFalse();
        assertThat(store().settle(KEY, limits, "never-taken", input(0), true).join()).isFalse();
        // the refund went back once, never above the capacity: 6000 free, not 9000
        assertThat(acquire(limits, 6000, 0)).isEqualTo(Grant.taken(0));
        assertThat(acquire(limits, 1, 0).outcome()).isEqualTo(Grant.Outcome.WAIT_TOO_LONG);
    }

    @Test
    void cancellingGivesTheRequestAndTheTokensBack() {
        BucketLimits oneAtATime = limits(60, 600, 1.0 / 60);
        String id = UUID.randomUUID().toString();
        acquire(store(), KEY, oneAtATime, id, 10, HOUR);
        assertThat(acquire(oneAtATime, 0, 0).outcome()).isEqualTo(Grant.Outcome.WAIT_TOO_LONG);
        assertThat(store().settle(KEY, oneAtATime, id, input(0), true).join()).isTrue();
        assertThat(acquire(oneAtATime, 10, 0)).isEqualTo(Grant.taken(0));
    }

    @Test
    void correctionsLowerTheBucketsAndNeverRaiseThem() {
        BucketLimits limits = limits(600, 6000, 1.0);
        store().correct(KEY, limits, tokensLeft(1000)).join();
        Grant lowered = acquire(limits, 2000, HOUR);
        assertThat(lowered.waitMillis()).isCloseTo(10_000L, within(tolerance()));

        advance(Duration.ofMinutes(2));
        store().correct(KEY, limits, new Correction(new Correction.Figure(1_000_000, Correction.NONE), new Correction.Figure(1_000_000, Correction.NONE),
                Correction.Figure.NONE, Correction.Figure.NONE, Correction.NONE)).join();
        assertThat(acquire(limits, 6000, 0)).isEqualTo(Grant.taken(0));
        assertThat(acquire(limits, 1, 0).outcome()).as("not raised above the capacity").isEqualTo(Grant.Outcome.WAIT_TOO_LONG);
    }

    @Test
    void aResetLaterThanOurRefillLowersTheBucketToMatch() {
        BucketLimits limits = limits(60, 0, 1.0);
        // the provider has 60 left but is full only in 30 s: at 1 per second we may hold 30 now
        store().correct(KEY, limits, new Correction(new Correction.Figure(60, 30_000), Correction.Figure.NONE,
                Correction.Figure.NONE, Correction.Figure.NONE, Correction.NONE)).join();
        AtomicInteger taken = new AtomicInteger();
        while (acquire(limits, 0, 0).outcome() == Grant.Outcome.TAKEN) {
            taken.incrementAndGet();
        }
        assertThat(taken.get()).isBetween(30, 30 + (int) (tolerance() / 1000) + 1);
    }

    @Test
    void aPauseHoldsEveryCallUntilItEndsAndOnlyEverLengthens() {
        BucketLimits limits = limits(600, 60_000, 1.0);
        store().correct(KEY, limits, Correction.EMPTY.withPause(5_000)).join();
        store().correct(KEY, limits, Correction.EMPTY.withPause(1_000)).join();
        Grant paused = acquire(limits, 10, HOUR);
        assertThat(paused.outcome()).isEqualTo(Grant.Outcome.TAKEN);
        assertThat(paused.waitMillis()).isCloseTo(5_000L, within(tolerance()));
        assertThat(acquire(limits, 10, 1_000).outcome()).isEqualTo(Grant.Outcome.WAIT_TOO_LONG);
        advance(Duration.ofSeconds(5));
        assertThat(acquire(limits, 10, 0)).isEqualTo(Grant.taken(0));
    }

    @Test
    void everyPairHasItsOwnBucketsWhateverTheNames() {
        BucketLimits one = limits(60, 0, 1.0 / 60);
        BucketKey[] keys = {new BucketKey("a", "b:c"), new BucketKey("a:b", "c"), new BucketKey("a", "{b}"),
            new BucketKey("a", "%7Bb%7D"), new BucketKey("a", "b}c{")};
        for (BucketKey key : keys) {
            assertThat(acquire(store(), key, one, UUID.randomUUID().toString(), 0, 0)).as(key.toString()).isEqualTo(Grant.taken(0));
        }
    }

    @Test
    void instancesActingTogetherNeverTakeMoreThanTheBucketsHold() throws Exception {
        BucketLimits limits = limits(60, 6000, 10.0);
        ConcurrentLinkedQueue<String> takenIds = new ConcurrentLinkedQueue<>();
        AtomicInteger refused = new AtomicInteger();
        tenCallsOnEachOfFourThreadsOfFourInstances(limits, input(1000), (id, grant) -> {
            if (grant.outcome() == Grant.Outcome.TAKEN) {
                takenIds.add(id);
            } else {
                refused.incrementAndGet();
            }
        });
        // 600 requests and 60 000 tokens: the tokens (1000 a call) allow exactly 60 of the 160 calls
        assertThat(takenIds).hasSize(60);
        assertThat(refused.get()).isEqualTo(100);

        // each instance settles some permits at 400 tokens: 600 back per permit, exactly once
        List<String> ids = new ArrayList<>(takenIds);
        StartTogether settling = new StartTogether();
        AtomicInteger settled = new AtomicInteger();
        for (int instance = 0; instance < 4; instance++) {
            OutboundStore store = instance == 0 ? store() : anotherInstance();
            settling.add(() -> {
                for (String id : ids.subList(0, 10)) {
                    if (store.settle(KEY, limits, id, input(400), false).join()) {
                        settled.incrementAndGet();
                    }
                }
                return null;
            });
        }
        settling.run(Duration.ofSeconds(60));
        assertThat(settled.get()).isEqualTo(10);
        for (int i = 0; i < 6; i++) {
            assertThat(acquire(limits, 1000, 0)).as("6000 tokens came back").isEqualTo(Grant.taken(0));
        }
        assertThat(acquire(limits, 1000, 0).outcome()).as("and no more").isEqualTo(Grant.Outcome.WAIT_TOO_LONG);
    }

    /** 160 acquisitions at once, each handed to {@code outcome} with its permit id. */
    private void tenCallsOnEachOfFourThreadsOfFourInstances(BucketLimits limits, Tokens tokens,
                                                           BiConsumer<String, Grant> outcome) throws Exception {
        StartTogether together = new StartTogether();
        for (int instance = 0; instance < 4; instance++) {
            OutboundStore store = instance == 0 ? store() : anotherInstance();
            for (int thread = 0; thread < 4; thread++) {
                together.add(() -> {
                    for (int i = 0; i < 10; i++) {
                        String id = UUID.randomUUID().toString();
                        outcome.accept(id, acquire(store, KEY, limits, id, tokens, 0));
                    }
                    return null;
                });
            }
        }
        together.run(Duration.ofSeconds(60));
    }

    private static Correction tokensLeft(long remaining) {
        return new Correction(Correction.Figure.NONE, new Correction.Figure(remaining, Correction.NONE),
                Correction.Figure.NONE, Correction.Figure.NONE, Correction.NONE);
    }

    /** 600 RPM, 60 000 input and 6 000 output tokens a minute, no total: an Anthropic-like model. */
    private static BucketLimits inputAndOutput(long itpm, long otpm) {
        return new BucketLimits(600, 0, itpm, otpm, 1.0, 1.0);
    }

    @Test
    void outputTokensRunOutWhileInputTokensRemain() {
        BucketLimits limits = inputAndOutput(60_000, 6_000);
        assertThat(acquire(limits, new Tokens(1_000, 4_000), 0)).isEqualTo(Grant.taken(0));
        // 2 000 output tokens left, 4 000 wanted, refilled at 100 a second: 20 s, on the output bucket
        Grant second = acquire(limits, new Tokens(1_000, 4_000), 0);
        assertThat(second.outcome()).isEqualTo(Grant.Outcome.WAIT_TOO_LONG);
        assertThat(second.shortOf()).isEqualTo(Dimension.OUTPUT_TOKENS);
        assertThat(second.waitMillis()).isCloseTo(20_000L, within(tolerance()));
        // the refused call took nothing: 59 000 input tokens are there for a call that wants no output
        assertThat(acquire(limits, new Tokens(59_000, 0), 0)).isEqualTo(Grant.taken(0));
        Grant noInput = acquire(limits, new Tokens(1_000, 0), 0);
        assertThat(noInput.outcome()).isEqualTo(Grant.Outcome.WAIT_TOO_LONG);
        assertThat(noInput.shortOf()).isEqualTo(Dimension.INPUT_TOKENS);
    }

    @Test
    void aWaitingCallWaitsForItsSlowestBucket() {
        BucketLimits limits = inputAndOutput(60_000, 6_000);
        acquire(limits, new Tokens(60_000, 6_000), 0);
        // 3 000 input tokens come back in 3 s, 1 200 output tokens in 12 s: the output bucket sets the wait
        Grant grant = acquire(limits, new Tokens(3_000, 1_200), HOUR);
        assertThat(grant.outcome()).isEqualTo(Grant.Outcome.TAKEN);
        assertThat(grant.waitMillis()).isCloseTo(12_000L, within(tolerance()));
    }

    @Test
    void eachTokenBucketSettlesToItsOwnUsage() {
        BucketLimits limits = inputAndOutput(6_000, 6_000);
        String id = UUID.randomUUID().toString();
        acquire(store(), KEY, limits, id, new Tokens(1_000, 4_000), HOUR);
        // used 1 200 in (200 more than estimated) and 500 out (3 500 less): 4 800 and 5 500 free
        assertThat(store().settle(KEY, limits, id, new Tokens(1_200, 500), false).join()).isTrue();
        assertThat(acquire(limits, new Tokens(4_800, 5_500), 0)).isEqualTo(Grant.taken(0));
        assertThat(acquire(limits, new Tokens(500, 0), 0).shortOf()).isEqualTo(Dimension.INPUT_TOKENS);
        assertThat(acquire(limits, new Tokens(0, 500), 0).shortOf()).isEqualTo(Dimension.OUTPUT_TOKENS);
    }

    @Test
    void aTotalLimitCountsInputAndOutputTogether() {
        BucketLimits limits = new BucketLimits(600, 10_000, 60_000, 6_000, 1.0, 1.0);
        assertThat(acquire(limits, new Tokens(6_000, 3_000), 0)).isEqualTo(Grant.taken(0));
        // 1 000 left of the total, 54 000 input and 3 000 output: the total refuses 1 500 + 0
        assertThat(acquire(limits, new Tokens(1_500, 0), 0).shortOf()).isEqualTo(Dimension.TOKENS);
        assertThat(acquire(limits, new Tokens(500, 500), 0)).isEqualTo(Grant.taken(0));
    }

    @Test
    void anOutputEstimateAboveTheOutputCapacityNeverFits() {
        BucketLimits limits = new BucketLimits(60, 0, 100_000, 1_000, 0.9, 1.0);
        assertThat(acquire(limits, new Tokens(0, 901), HOUR)).isEqualTo(Grant.neverFits(Dimension.OUTPUT_TOKENS));
        assertThat(acquire(limits, new Tokens(90_000, 900), 0)).isEqualTo(Grant.taken(0));
    }

    @Test
    void eachFigureOfTheProviderLowersItsOwnBucket() {
        BucketLimits limits = inputAndOutput(60_000, 6_000);
        store().correct(KEY, limits, new Correction(Correction.Figure.NONE, Correction.Figure.NONE,
                Correction.Figure.NONE, new Correction.Figure(1_000, Correction.NONE), Correction.NONE)).join();
        Grant output = acquire(limits, new Tokens(0, 2_000), 0);
        assertThat(output.shortOf()).isEqualTo(Dimension.OUTPUT_TOKENS);
        assertThat(output.waitMillis()).isCloseTo(10_000L, within(tolerance()));
        assertThat(acquire(limits, new Tokens(60_000, 1_000), 0)).as("input untouched").isEqualTo(Grant.taken(0));
    }

    @Test
    void instancesShareTheOutputBucketExactly() throws Exception {
        BucketLimits limits = inputAndOutput(1_000_000, 20_000);
        AtomicInteger taken = new AtomicInteger();
        tenCallsOnEachOfFourThreadsOfFourInstances(limits, new Tokens(100, 1_000), (id, grant) -> {
            if (grant.outcome() == Grant.Outcome.TAKEN) {
                taken.incrementAndGet();
            }
        });
        // 20 000 output tokens at 1 000 a call: 20 of the 160 calls, although input allows all of them
        assertThat(taken.get()).isEqualTo(20);
    }
}
