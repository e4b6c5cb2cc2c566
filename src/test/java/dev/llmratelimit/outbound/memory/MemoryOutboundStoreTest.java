package dev.llmratelimit.outbound.memory;

import dev.llmratelimit.outbound.BucketKey;
import dev.llmratelimit.outbound.BucketLimits;
import dev.llmratelimit.outbound.OutboundStore;
import dev.llmratelimit.outbound.OutboundStoreContract;
import dev.llmratelimit.outbound.Tokens;
import dev.llmratelimit.testsupport.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class MemoryOutboundStoreTest extends OutboundStoreContract {

    private final MutableClock clock = new MutableClock();
    private final MemoryOutboundStore store = new MemoryOutboundStore(clock);

    @Override
    protected OutboundStore store() {
        return store;
    }

    @Override
    protected OutboundStore anotherInstance() {
        return store;
    }

    @Override
    protected void advance(Duration duration) {
        clock.advance(duration);
    }

    @Override
    protected long tolerance() {
        return 0;
    }

    @Test
    void bucketsFullAgainAndOwedNothingAreForgotten() {
        BucketLimits limits = new BucketLimits(60, 6000, 1.0, 1.0);
        for (int i = 0; i < 1023; i++) {
            String id = "p" + i;
            store.acquire(new BucketKey("openai", "model-" + i), limits, id, new Tokens(100, 0), 0, 60_000).join();
            store.settle(new BucketKey("openai", "model-" + i), limits, id, new Tokens(100, 0), false).join();
        }
        assertThat(store.size()).isEqualTo(1023);
        clock.advance(Duration.ofMinutes(1));
        store.acquire(new BucketKey("openai", "model-last"), limits, "last", new Tokens(100, 0), 0, 60_000).join();
        // the sweep on the 1024th acquisition dropped the 1023 full ones, kept the one just taken
        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void aPermitWhoseLeaseRanOutCountsAsItsEstimate() {
        BucketLimits limits = new BucketLimits(60, 6000, 1.0, 1.0);
        BucketKey key = new BucketKey("openai", "gpt-4o");
        store.acquire(key, limits, "slow", new Tokens(3000, 0), 0, 1_000).join();
        clock.advance(Duration.ofMillis(1_001));
        assertThat(store.settle(key, limits, "slow", new Tokens(0, 0), true).join()).isFalse();
    }
}
