package dev.llmratelimit.store.memory;

import dev.llmratelimit.engine.CallerCounter;
import dev.llmratelimit.engine.CallerLimitStore;
import dev.llmratelimit.engine.CallerPlan;
import dev.llmratelimit.engine.CallerScope;
import dev.llmratelimit.store.CallerLimitStoreContract;
import dev.llmratelimit.testsupport.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class MemoryCallerLimitStoreContractTest extends CallerLimitStoreContract {

    private final MutableClock clock = new MutableClock();

    @Override
    protected CallerLimitStore createStore() {
        return new MemoryCallerLimitStore(clock);
    }

    @Override
    protected long windowMillis() {
        return 60_000;
    }

    @Override
    protected long leaseMillis() {
        return 600_000;
    }

    @Override
    protected void pass(long millis) {
        clock.advance(Duration.ofMillis(millis));
    }

    @Test
    void countersOfPastWindowsWithoutSlotsAreDropped() {
        MemoryCallerLimitStore store = new MemoryCallerLimitStore(clock);
        CallerPlan holding = new CallerPlan(List.of(new CallerCounter(CallerScope.KEY, "holder", 0, 0, 1)), 60_000, 600_000);
        store.acquire(holding);
        for (int i = 0; i < 100; i++) {
            store.acquire(new CallerPlan(List.of(new CallerCounter(CallerScope.KEY, "k" + i, 10, 0, 0)), 60_000, 600_000));
        }
        assertThat(store.size()).isEqualTo(101);
        clock.advance(Duration.ofMinutes(1));

        CallerPlan busy = new CallerPlan(List.of(new CallerCounter(CallerScope.USER, "busy", 1_000_000, 0, 0)), 60_000, 600_000);
        for (int i = 0; i < MemoryCallerLimitStore.SWEEP_EVERY - 101; i++) {
            store.acquire(busy);
        }

        assertThat(store.size()).isEqualTo(2);                               // the live slot's holder and "busy"
    }
}
