package dev.llmratelimit.store.memory;

import dev.llmratelimit.engine.CounterStore;
import dev.llmratelimit.store.CounterStoreContract;
import dev.llmratelimit.testsupport.MutableClock;

import java.time.Duration;

class MemoryCounterStoreContractTest extends CounterStoreContract {

    private final MutableClock clock = new MutableClock();

    @Override
    protected CounterStore createStore() {
        return new MemoryCounterStore(clock);
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
}
