package dev.llmratelimit.outbound;

import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class OutboundLimiterTest {

    private final MutableClock clock = new MutableClock();
    private final ClockWaiter waiter = new ClockWaiter(clock);

    private OutboundLimiter limiter(Consumer<ProviderBuilder> spec) {
        return OutboundLimiter.builder().clock(clock).waiter(waiter).provider("openai", spec).build();
    }

    /** 60 RPM, room for one call at a time, the whole limit (no headroom). */
    private OutboundLimiter sixtyRpmOneAtATime() {
        return limiter(p -> p.rpm(60).headroom(1.0).burst(1.0 / 60).maxWait(Duration.ofMinutes(1)));
    }

    @Test
    void tenCallsAtSixtyRpmTakeNineSecondsOfClockTheFirstAtOnce() throws InterruptedException {
        OutboundLimiter limiter = sixtyRpmOneAtATime();
        long start = clock.millis();
        List<Long> startedAt = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            limiter.acquire("openai", "gpt-4o", new Tokens(0, 0)).settle(Tokens.NONE);
            startedAt.add(clock.millis() - start);
        }
        assertThat(startedAt).containsExactly(0L, 1000L, 2000L, 3000L, 4000L, 5000L, 6000L, 7000L, 8000L, 9000L);
        assertThat(waiter.sleeps()).hasSize(9).allMatch(wait -> wait == 1000L);
    }

    @Test
    void asynchronousCallersCompleteInArrivalOrderAsTheClockMoves() {
        OutboundLimiter limiter = sixtyRpmOneAtATime();
        List<CompletableFuture<Permit>> calls = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            calls.add(limiter.acquireAsync("openai", "gpt-4o", new Tokens(0, 0)));
        }
        assertThat(calls).filteredOn(CompletableFuture::isDone).hasSize(1);
        for (int second = 1; second <= 4; second++) {
            waiter.advance(Duration.ofSeconds(1));
            int done = second + 1;
            assertThat(calls.subList(0, done)).as("after %d s", second).allMatch(CompletableFuture::isDone);
            assertThat(calls.subList(done, calls.size())).noneMatch(CompletableFuture::isDone);
        }
        assertThat(calls.get(4).join().waitedMillis()).isEqualTo(4000);
    }

    @Test
    void aWaitBeyondMaxWaitFailsAtOnceWithoutWaiting() {
        OutboundLimiter limiter = limiter(p -> p.rpm(60).headroom(1.0).burst(1.0 / 60).maxWait(Duration.ofMillis(500)));
        CompletableFuture<Permit> first = limiter.acquireAsync("openai", "gpt-4o", new Tokens(0, 0));
        assertThat(first).isCompleted();
        long before = clock.millis();
        assertThatThrownBy(() -> limiter.acquire("openai", "gpt-4o", new Tokens(0, 0)))
                .isInstanceOfSatisfying(OutboundLimitException.class, e -> {
                    assertThat(e.reason()).isEqualTo(OutboundLimitException.Reason.WAIT_TOO_LONG);
                    assertThat(e.roomIn()).isEqualTo(Duration.ofSeconds(1));
                });
        CompletableFuture<Permit> async = limiter.acquireAsync("openai", "gpt-4o", new Tokens(0, 0));
        assertThat(async).isCompletedExceptionally();
        assertThat(clock.millis()).isEqualTo(before);
        assertThat(waiter.sleeps()).isEmpty();
    }

    @Test
    void anEstimateThatCanNeverFitFailsAtOnce() {
        OutboundLimiter limiter = limiter(p -> p.rpm(60).tpm(10_000));
        assertThatThrownBy(() -> limiter.acquire("openai", "gpt-4o", new Tokens(9_001, 0)))
                .isInstanceOfSatisfying(OutboundLimitException.class,
                        e -> assertThat(e.reason()).isEqualTo(OutboundLimitException.Reason.NEVER_FITS))
                .hasMessageContaining("9001 input and 0 output tokens (estimated)");
    }

    @Test
    void tokensQueueCallsWhileRequestsHaveRoom() throws InterruptedException {
        OutboundLimiter limiter = limiter(p -> p.rpm(1000).tpm(6000).headroom(1.0).maxWait(Duration.ofMinutes(1)));
        limiter.acquire("openai", "gpt-4o", new Tokens(5000, 0));
        Permit second = limiter.acquire("openai", "gpt-4o", new Tokens(3000, 0));
        assertThat(second.waitedMillis()).isEqualTo(20_000);
    }

    @Test
    void aCancelledWaitGivesItsPlaceBack() throws InterruptedException {
        OutboundLimiter limiter = sixtyRpmOneAtATime();
        limiter.acquire("openai", "gpt-4o", new Tokens(0, 0));
        CompletableFuture<Permit> waiting = limiter.acquireAsync("openai", "gpt-4o", new Tokens(0, 0));
        assertThat(waiting).isNotDone();
        waiting.cancel(false);
        waiter.advance(Duration.ofSeconds(1));
        assertThat(limiter.acquire("openai", "gpt-4o", new Tokens(0, 0)).waitedMillis()).isZero();
    }

    @Test
    void anInterruptedWaitGivesItsPlaceBack() throws InterruptedException {
        OutboundLimiter limiter = OutboundLimiter.builder().clock(clock).waiter(new Waiter() {
            @Override
            public void sleep(long millis) throws InterruptedException {
                throw new InterruptedException();
            }

            @Override
            public CompletableFuture<Void> after(long millis) {
                throw new UnsupportedOperationException();
            }
        }).provider("openai", p -> p.rpm(60).headroom(1.0).burst(1.0 / 60)).build();
        limiter.acquire("openai", "gpt-4o", new Tokens(0, 0));
        assertThatThrownBy(() -> limiter.acquire("openai", "gpt-4o", new Tokens(0, 0))).isInstanceOf(InterruptedException.class);
        clock.advance(Duration.ofSeconds(1));
        assertThat(limiter.acquire("openai", "gpt-4o", new Tokens(0, 0)).waitedMillis()).isZero();
    }

    @Test
    void settlingWithTheRealUsageGivesBackWhatWasNotUsed() throws InterruptedException {
        OutboundLimiter limiter = limiter(p -> p.rpm(1000).tpm(6000).headroom(1.0).maxWait(Duration.ZERO));
        Permit permit = limiter.acquire("openai", "gpt-4o", new Tokens(5000, 0));
        assertThat(permit.settle(new Usage(300, 700, 0)).join()).isTrue();
        assertThat(permit.settle(new Usage(300, 700, 0)).join()).as("once only").isFalse();
        assertThat(permit.cancel().join()).isFalse();
        limiter.acquire("openai", "gpt-4o", new Tokens(5000, 0));
        assertThatThrownBy(() -> limiter.acquire("openai", "gpt-4o", new Tokens(1, 0))).isInstanceOf(OutboundLimitException.class);
    }

    @Test
    void withoutMaxTokensTheEstimateIsTheModelsLearnedAverage() throws InterruptedException {
        OutboundLimiter limiter = limiter(p -> p.rpm(1000).tpm(1_000_000).expectedOutputTokens(256));
        assertThat(limiter.estimate("openai", "gpt-4o", 100, 50)).isEqualTo(new Tokens(100, 50));
        assertThat(limiter.estimate("openai", "gpt-4o", 100, -1)).isEqualTo(new Tokens(100, 256));
        limiter.acquire("openai", "gpt-4o", new Tokens(100, 256)).settle(new Usage(100, 1000, 0));
        // 256 + (1000 - 256) / 16
        assertThat(limiter.estimate("openai", "gpt-4o", 100, -1)).isEqualTo(new Tokens(100, 302));
        assertThat(limiter.estimate("openai", "gpt-4o-mini", 100, -1)).as("per model").isEqualTo(new Tokens(100, 256));
    }

    @Test
    void eachModelHasItsOwnBucketsAndLimits() throws InterruptedException {
        OutboundLimiter limiter = limiter(p -> p.rpm(60).headroom(1.0).burst(1.0 / 60).maxWait(Duration.ZERO)
                .model("gpt-4o-mini", 120, -1));
        limiter.acquire("openai", "gpt-4o", new Tokens(0, 0));
        limiter.acquire("openai", "gpt-4.1", new Tokens(0, 0));
        limiter.acquire("openai", "gpt-4o-mini", new Tokens(0, 0));
        limiter.acquire("openai", "gpt-4o-mini", new Tokens(0, 0));
        assertThatThrownBy(() -> limiter.acquire("openai", "gpt-4o-mini", new Tokens(0, 0))).isInstanceOf(OutboundLimitException.class);
        assertThatThrownBy(() -> limiter.acquire("openai", "gpt-4o", new Tokens(0, 0))).isInstanceOf(OutboundLimitException.class);
    }

    @Test
    void providerCorrectionsLowerTheBuckets() throws InterruptedException {
        OutboundLimiter limiter = limiter(p -> p.rpm(600).tpm(60_000).headroom(1.0).maxWait(Duration.ofMinutes(1)));
        limiter.correct("openai", "gpt-4o", new Correction(Correction.Figure.NONE,
                new Correction.Figure(0, Correction.NONE), Correction.Figure.NONE, Correction.Figure.NONE, Correction.NONE)).join();
        assertThat(limiter.acquire("openai", "gpt-4o", new Tokens(1000, 0)).waitedMillis()).isEqualTo(1000);
    }

    @Test
    void aStoreThatCannotAnswerLetsCallsThroughUnlimited() throws InterruptedException {
        OutboundStore down = new OutboundStore() {
            @Override
            public CompletableFuture<Grant> acquire(BucketKey key, BucketLimits limits, String permitId, Tokens tokens,
                                                    long maxWaitMillis, long leaseMillis) {
                return CompletableFuture.failedFuture(new StoreUnavailableException("down", null));
            }

            @Override
            public CompletableFuture<Boolean> settle(BucketKey key, BucketLimits limits, String permitId,
                                                     Tokens actualTokens, boolean refundRequest) {
                return CompletableFuture.failedFuture(new StoreUnavailableException("down", null));
            }

            @Override
            public CompletableFuture<Void> correct(BucketKey key, BucketLimits limits, Correction correction) {
                return CompletableFuture.failedFuture(new StoreUnavailableException("down", null));
            }
        };
        OutboundLimiter limiter = OutboundLimiter.builder().clock(clock).waiter(waiter)
                .store(ProviderSettings.StoreKind.MEMORY, down)
                .provider("openai", p -> p.rpm(1).headroom(1.0)).build();
        for (int i = 0; i < 3; i++) {
            Permit permit = limiter.acquire("openai", "gpt-4o", new Tokens(10, 0));
            assertThat(permit.settle(new Tokens(10, 0)).join()).isFalse();
        }
        assertThat(limiter.acquireAsync("openai", "gpt-4o", new Tokens(10, 0))).isCompleted();
        assertThat(limiter.correct("openai", "gpt-4o", Correction.EMPTY.withPause(1000))).isCompleted();
    }

    @Test
    void anUnknownProviderIsAProgrammingError() {
        OutboundLimiter limiter = sixtyRpmOneAtATime();
        assertThatThrownBy(() -> limiter.acquire("anthropic", "claude", new Tokens(0, 0)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("anthropic");
        assertThatThrownBy(() -> new Tokens(-1, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void waitAndLeaseAreAtMostADaySoAPermitsExpiryIsAClockReading() {
        assertThat(limiter(p -> p.rpm(60).maxWait(Duration.ofDays(1)).lease(Duration.ofDays(1)))).isNotNull();
        assertThatThrownBy(() -> limiter(p -> p.rpm(60).lease(Duration.ofMillis(Long.MAX_VALUE))))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("lease is above 0 and at most 1 day: PT2562047788015H12M55.807S");
        assertThatThrownBy(() -> limiter(p -> p.rpm(60).maxWait(Duration.ofDays(2))))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("max-wait is 0 to 1 day: PT48H");
    }
}
