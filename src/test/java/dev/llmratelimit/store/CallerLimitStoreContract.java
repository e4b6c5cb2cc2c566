package dev.llmratelimit.store;

import dev.llmratelimit.engine.CallerCounter;
import dev.llmratelimit.engine.CallerHold;
import dev.llmratelimit.engine.CallerLimitStore;
import dev.llmratelimit.engine.CallerLimitType;
import dev.llmratelimit.engine.CallerPlan;
import dev.llmratelimit.engine.CallerRefusal;
import dev.llmratelimit.engine.CallerScope;
import dev.llmratelimit.engine.CallerVerdict;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The behaviour every {@link CallerLimitStore} must show; each store's test class extends this one. */
public abstract class CallerLimitStoreContract {

    private final List<CallerLimitStore> stores = new ArrayList<>();
    private CallerLimitStore store;

    /** A fresh, empty store. */
    protected abstract CallerLimitStore createStore();

    /** A window short enough for {@link #pass} to wait out. */
    protected abstract long windowMillis();

    /** A parallel-slot lease short enough for {@link #pass} to wait out. */
    protected abstract long leaseMillis();

    /** Lets the given time go by: moves the clock, or sleeps a little longer. */
    protected abstract void pass(long millis) throws InterruptedException;

    private CallerLimitStore store() {
        if (store == null) {
            store = createStore();
            stores.add(store);
        }
        return store;
    }

    @AfterEach
    void closeStores() {
        stores.forEach(CallerLimitStore::close);
    }

    private CallerPlan plan(CallerCounter... counters) {
        return new CallerPlan(List.of(counters), windowMillis(), leaseMillis());
    }

    private static CallerCounter counter(CallerScope scope, String id, long rpm, long tpm, long parallel) {
        return new CallerCounter(scope, id, rpm, tpm, parallel);
    }

    private CallerHold admitted(CallerPlan plan) {
        CallerVerdict verdict = store().acquire(plan);
        assertThat(verdict.refusal()).isNull();
        return verdict.hold();
    }

    private CallerRefusal refused(CallerPlan plan) {
        CallerVerdict verdict = store().acquire(plan);
        assertThat(verdict.admitted()).isFalse();
        return verdict.refusal();
    }

    @Test
    void requestsPerWindowAtKeyScope() throws InterruptedException {
        CallerCounter key = counter(CallerScope.KEY, "sk-live-1", 3, 0, 0);
        CallerPlan plan = plan(key);
        for (int i = 0; i < 3; i++) {
            admitted(plan);
        }

        CallerRefusal refusal = refused(plan);
        assertThat(refusal.counter()).isEqualTo(key);
        assertThat(refusal.type()).isEqualTo(CallerLimitType.REQUESTS);
        assertThat(refusal.limit()).isEqualTo(3);
        assertThat(refusal.current()).isEqualTo(3);
        assertThat(refusal.resetMillis()).isBetween(1L, windowMillis());
        assertThat(refused(plan).current()).isEqualTo(3);                   // a refusal counts nothing

        pass(windowMillis());
        admitted(plan);
    }

    @Test
    void tokensPerWindowAtUserScopeCountAfterTheCall() throws InterruptedException {
        CallerCounter user = counter(CallerScope.USER, "dana", 0, 100, 0);
        CallerPlan plan = plan(user);
        admitted(plan);
        store().record(plan, 60);
        admitted(plan);                                                      // 60 < 100: admitted
        store().record(plan, 40);

        CallerRefusal refusal = refused(plan);
        assertThat(refusal.type()).isEqualTo(CallerLimitType.TOKENS);
        assertThat(refusal.limit()).isEqualTo(100);
        assertThat(refusal.current()).isEqualTo(100);
        assertThat(refusal.counter().scope()).isEqualTo(CallerScope.USER);

        pass(windowMillis());
        admitted(plan);
    }

    @Test
    void parallelRequestsAtTeamScopeUntilReleased() {
        CallerPlan plan = plan(counter(CallerScope.TEAM, "team-a", 0, 0, 2));
        CallerHold first = admitted(plan);
        CallerHold second = admitted(plan);

        CallerRefusal refusal = refused(plan);
        assertThat(refusal.type()).isEqualTo(CallerLimitType.PARALLEL_REQUESTS);
        assertThat(refusal.limit()).isEqualTo(2);
        assertThat(refusal.current()).isEqualTo(2);
        assertThat(refusal.retryAfterSeconds()).isEqualTo(1);

        store().release(plan, first);
        store().release(plan, first);                                        // a second release frees nothing more
        CallerHold third = admitted(plan);
        assertThat(refused(plan).current()).isEqualTo(2);
        store().release(plan, second);
        store().release(plan, third);
        admitted(plan);
        admitted(plan);
        assertThat(refused(plan).current()).isEqualTo(2);
    }

    @Test
    void eachScopeIdentityHasItsOwnCountersAndATeamIsShared() {
        CallerCounter team = counter(CallerScope.TEAM, "shared", 3, 0, 0);
        CallerPlan keyA = plan(counter(CallerScope.KEY, "a", 5, 0, 0), team);
        CallerPlan keyB = plan(counter(CallerScope.KEY, "b", 5, 0, 0), team);
        CallerPlan keyNamedLikeTheTeam = plan(counter(CallerScope.KEY, "shared", 1, 0, 0));
        admitted(keyA);
        admitted(keyA);
        admitted(keyB);

        CallerRefusal refusal = refused(keyB);
        assertThat(refusal.counter()).isEqualTo(team);
        assertThat(refusal.current()).isEqualTo(3);
        assertThat(refused(keyA).counter()).isEqualTo(team);
        admitted(keyNamedLikeTheTeam);                                       // another scope, another counter
    }

    @Test
    void aRefusalByOneScopeCountsNothingInTheOthers() {
        CallerCounter key = counter(CallerScope.KEY, "k", 5, 0, 0);
        CallerCounter team = counter(CallerScope.TEAM, "t", 0, 0, 1);
        CallerPlan plan = plan(key, team);
        CallerHold held = admitted(plan);
        for (int i = 0; i < 3; i++) {
            assertThat(refused(plan).counter()).isEqualTo(team);
        }
        store().release(plan, held);

        int admitted = 0;
        CallerVerdict verdict;
        while ((verdict = store().acquire(plan)).admitted()) {
            store().release(plan, verdict.hold());
            admitted++;
        }
        assertThat(admitted).isEqualTo(4);
        assertThat(verdict.refusal().counter()).isEqualTo(key);
        assertThat(verdict.refusal().current()).isEqualTo(5);
    }

    @Test
    void compensationTakesBackTheRequestAndTheSlot() {
        CallerPlan plan = plan(counter(CallerScope.KEY, "k", 2, 0, 1), counter(CallerScope.USER, "u", 2, 0, 0));
        store().compensate(plan, admitted(plan));
        store().release(plan, admitted(plan));
        store().release(plan, admitted(plan));

        CallerRefusal refusal = refused(plan);
        assertThat(refusal.type()).isEqualTo(CallerLimitType.REQUESTS);
        assertThat(refusal.current()).isEqualTo(2);
    }

    @Test
    void compensationLeavesALaterWindowAlone() throws InterruptedException {
        CallerPlan plan = plan(counter(CallerScope.KEY, "k", 1, 0, 0));
        CallerHold old = admitted(plan);
        pass(windowMillis());
        admitted(plan);

        store().compensate(plan, old);

        assertThat(refused(plan).current()).isEqualTo(1);
    }

    @Test
    void anUnreleasedSlotExpiresWithItsLease() throws InterruptedException {
        CallerPlan plan = plan(counter(CallerScope.KEY, "crashed", 0, 0, 1));
        admitted(plan);
        assertThat(refused(plan).current()).isEqualTo(1);

        pass(leaseMillis());

        admitted(plan);
        assertThat(refused(plan).current()).isEqualTo(1);
    }

    @Test
    void recordingWithoutALiveWindowStartsOne() {
        CallerPlan plan = plan(counter(CallerScope.TEAM, "t", 0, 50, 0));
        store().record(plan, 50);

        CallerRefusal refusal = refused(plan);
        assertThat(refusal.current()).isEqualTo(50);
        assertThat(refusal.resetMillis()).isBetween(1L, windowMillis());
    }
}
