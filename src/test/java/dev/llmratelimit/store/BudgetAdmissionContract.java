package dev.llmratelimit.store;

import dev.llmratelimit.budget.BudgetIdentity;
import dev.llmratelimit.budget.BudgetPolicy;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.BudgetExtension;
import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.GroupKind;
import dev.llmratelimit.engine.PromptTokens;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.http.ErrorResponse;
import dev.llmratelimit.http.ErrorStyle;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.testsupport.StartTogether;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Budgets (docs/budgets.md) as counter groups of the one admission, against a real store: exact
 * micro-dollars under concurrency over several instances, the seed-002 bypass closed, free models,
 * zero budgets. Prices: input $1 and output $2 per 1M tokens, so a token costs 1 or 2 micro-dollars.
 */
public abstract class BudgetAdmissionContract {

    private static final int INSTANCES = 4;
    private static final int THREADS = 16;
    private static final int ATTEMPTS = 4;
    private static final long PROMPT = 40;
    private static final long MAX_TOKENS = 60;
    /** 40 x 1 + 60 x 2 micro-dollars. */
    private static final long WORST_CASE = 160;
    private static final BudgetIdentity ALICE = new BudgetIdentity("alice-key", "alice", "team-a");

    /** A store for instance {@code i}; every instance of one test shares the counters. */
    protected abstract AdmissionStore store(int instance);

    /** The clock of the budget periods (the store's, where it has one). */
    protected Clock clock() {
        return Clock.systemUTC();
    }

    /** The contract on a store whose clock the tests move (memory, JDBC): leases pass without waiting. */
    public abstract static class OnAMovableClock extends BudgetAdmissionContract {

        protected final MutableClock clock = new MutableClock(1_767_225_600_000L);     // 2026-01-01T00:00:00Z

        @Override
        protected Clock clock() {
            return clock;
        }

        @Override
        protected void passTime(Duration duration) {
            clock.advance(duration);
        }
    }

    /** Lets {@code duration} pass on the clock of the store and of the engine. */
    protected void passTime(Duration duration) throws InterruptedException {
        Thread.sleep(duration.toMillis());
    }

    /** A {@code parallel-lease} short enough for {@link #passTime} (the Redis server's clock really waits). */
    protected long shortLeaseMillis() {
        return 400;
    }

    private RateLimiter limiter(int instance, String... lines) {
        return limiter(instance, 600_000, lines);
    }

    private RateLimiter limiter(int instance, long leaseMillis, String... lines) {
        List<String> all = new ArrayList<>(List.of("models.m.rpm=100000", "prices.m.input=1.00", "prices.m.output=2.00",
                "budget.period=PT1H"));
        all.addAll(List.of(lines));
        Map<String, String> props = properties(all.toArray(String[]::new));
        return new RateLimiter(PolicyParser.parse(props), store(instance), clock(), leaseMillis,
                List.of(new BudgetExtension(BudgetPolicy.parse(props), clock())));
    }

    private static Admission admit(RateLimiter limiter, String model, BudgetIdentity who, long maxTokens) {
        return limiter.admit(AdmissionRequest.of(model, null, null).withIdentity(who)
                .withTokens(PromptTokens.known(PROMPT), maxTokens));
    }

    @Test
    void reserveNeverSpendsAMicroDollarOverTheBudgetAcrossInstances() throws Exception {
        long budget = 10_000;                    // $0.01: 62 worst cases fit
        List<RateLimiter> instances = new ArrayList<>();
        for (int i = 0; i < INSTANCES; i++) {
            instances.add(limiter(i, "teams.team-a.budget=0.01"));
        }
        AtomicLong admitted = new AtomicLong();
        AtomicLong charged = new AtomicLong();
        StartTogether together = new StartTogether();
        for (int i = 0; i < INSTANCES; i++) {
            RateLimiter instance = instances.get(i);
            for (int t = 0; t < THREADS; t++) {
                long completion = 30 + (t % 4) * 10L;          // 30..60 tokens: at most the worst case
                together.add(() -> {
                    for (int a = 0; a < ATTEMPTS; a++) {
                        Admission admission = admit(instance, "m", ALICE, MAX_TOKENS);
                        if (admission.outcome() != Admission.Outcome.ADMITTED) {
                            assertThat(admission.refusal().dimension()).isEqualTo(Dimension.MONEY);
                            continue;
                        }
                        admission.complete(new Usage(PROMPT, completion, 0));
                        admitted.incrementAndGet();
                        charged.addAndGet(PROMPT + 2 * completion);
                    }
                    return null;
                });
            }
        }
        together.run(Duration.ofSeconds(120));
        Admission after = admit(instances.get(0), "m", ALICE, MAX_TOKENS);
        long spent = after.outcome() == Admission.Outcome.REFUSED ? after.refusal().current()
                : budget - after.verdict().budget().remainingMicros() - WORST_CASE;
        assertThat(spent).isEqualTo(charged.get()).isLessThanOrEqualTo(budget);
        assertThat(admitted.get()).isGreaterThanOrEqualTo(budget / WORST_CASE);
    }

    @Test
    void overshootIsAtMostTheSettlementsAboveTheirWorstCase() throws Exception {
        long budget = 10_000;
        List<RateLimiter> instances = new ArrayList<>();
        for (int i = 0; i < INSTANCES; i++) {
            instances.add(limiter(i, "teams.team-a.budget=0.01", "budget.max-output-tokens=60"));
        }
        AtomicLong charged = new AtomicLong();
        AtomicLong aboveWorstCase = new AtomicLong();
        StartTogether together = new StartTogether();
        for (int i = 0; i < INSTANCES; i++) {
            RateLimiter instance = instances.get(i);
            for (int t = 0; t < THREADS; t++) {
                long completion = 40 + (t % 4) * 10L;          // 40..70: some beyond the 60 expected
                together.add(() -> {
                    for (int a = 0; a < ATTEMPTS; a++) {
                        Admission admission = admit(instance, "m", ALICE, AdmissionRequest.UNKNOWN_OUTPUT);
                        if (admission.outcome() != Admission.Outcome.ADMITTED) {
                            continue;
                        }
                        admission.complete(new Usage(PROMPT, completion, 0));
                        long cost = PROMPT + 2 * completion;
                        charged.addAndGet(cost);
                        aboveWorstCase.addAndGet(Math.max(0, cost - WORST_CASE));
                    }
                    return null;
                });
            }
        }
        together.run(Duration.ofSeconds(120));
        Admission after = admit(instances.get(0), "m", ALICE, MAX_TOKENS);
        assertThat(after.outcome()).isEqualTo(Admission.Outcome.REFUSED);
        assertThat(after.refusal().current()).isEqualTo(charged.get())
                .isLessThanOrEqualTo(budget + aboveWorstCase.get());
    }

    @Test
    void aReservationNeverSettledExpiresWithItsLeaseAndALateSettlementChargesOnce() throws Exception {
        long lease = shortLeaseMillis();
        RateLimiter limiter = limiter(0, lease, "teams.team-a.budget=0.000320");     // two worst cases
        Admission lostBeforeSweep = admit(limiter, "m", ALICE, MAX_TOKENS);
        Admission lostAfterSweep = admit(limiter, "m", ALICE, MAX_TOKENS);
        Admission blocked = admit(limiter, "m", ALICE, MAX_TOKENS);
        assertThat(blocked.outcome()).isEqualTo(Admission.Outcome.REFUSED);
        assertThat(blocked.refusal().current()).as("spent").isZero();
        assertThat(blocked.refusal().reserved()).isEqualTo(2 * WORST_CASE);
        passTime(Duration.ofMillis(lease + lease / 2));
        // settled after its lease, before any decision swept it: given back once, charged once
        lostBeforeSweep.complete(new Usage(PROMPT, 30, 0));                          // 100
        Admission afterLease = admit(limiter, "m", ALICE, MAX_TOKENS);                // sweeps the other one
        assertThat(afterLease.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(afterLease.verdict().budget().remainingMicros()).isEqualTo(320 - 100 - WORST_CASE);
        afterLease.abort();
        // settled after the sweep gave it back: charged, not given back a second time
        lostAfterSweep.complete(new Usage(PROMPT, 30, 0));                           // 100
        Admission refused = admit(limiter, "m", ALICE, MAX_TOKENS);                   // 200 spent + 160 > 320
        assertThat(refused.outcome()).isEqualTo(Admission.Outcome.REFUSED);
        assertThat(refused.refusal().current()).isEqualTo(200);
        assertThat(refused.refusal().reserved()).isZero();
        Admission fitsExactly = admit(limiter, "m", ALICE, 40);                      // 40 + 80: what is left
        assertThat(fitsExactly.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(fitsExactly.verdict().budget().remainingMicros()).isZero();
    }

    @Test
    void seed002AModelWithoutAPriceIsRefusedNotBypassed() {
        RateLimiter limiter = limiter(0, "principals.alice-key.budget=0.000100");
        Admission spend = admit(limiter, "m", ALICE, 30);         // 40 + 60 = 100: the whole budget
        assertThat(spend.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        spend.complete(new Usage(PROMPT, 30, 0));
        Admission unpriced = admit(limiter, "unpriced-model", ALICE, 30);
        assertThat(unpriced.outcome()).isEqualTo(Admission.Outcome.UNPRICED_MODEL);
        assertThat(unpriced.permitsCall()).isFalse();
        ErrorResponse answer = ErrorResponse.refusal(unpriced, ErrorStyle.OPENAI);
        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.code()).isEqualTo("model_price_unknown");
        assertThat(answer.message()).contains("unpriced-model");
        Admission priced = admit(limiter, "m", ALICE, 30);
        assertThat(priced.outcome()).isEqualTo(Admission.Outcome.REFUSED);
        assertThat(priced.refusal().group().kind()).isEqualTo(GroupKind.BUDGET);
        ErrorResponse refused = ErrorResponse.refusal(priced, ErrorStyle.OPENAI);
        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.type()).isEqualTo("budget_exceeded");
        assertThat(refused.message()).startsWith("Budget exceeded for key alice-key:")
                .contains(": spent $0.0001 of $0.0001 in the period ending ");
    }

    @Test
    void anUnconfiguredModelUnderChargeIsChargedTheConfiguredPrice() {
        RateLimiter limiter = limiter(0, "teams.team-a.budget=0.001", "budget.unpriced=charge:10.00");
        Admission admission = admit(limiter, "other", ALICE, 10);    // (40 + 10) x 10 micro-dollars
        assertThat(admission.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(admission.verdict().budget().remainingMicros()).isEqualTo(1000 - 500);
        admission.complete(new Usage(PROMPT, 0, 0));                  // 400
        Admission next = admit(limiter, "other", ALICE, 10);
        assertThat(next.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(next.verdict().budget().remainingMicros()).isEqualTo(1000 - 400 - 500);
        Admission third = admit(limiter, "other", ALICE, 10);
        assertThat(third.outcome()).isEqualTo(Admission.Outcome.REFUSED);
        assertThat(third.refusal().current()).as("spent").isEqualTo(400);
        assertThat(third.refusal().reserved()).as("reserved by the call in flight").isEqualTo(500);
        assertThat(ErrorResponse.refusal(third, ErrorStyle.OPENAI).message()).startsWith("Budget exceeded for team team-a:"
                        + " this call may cost up to $0.0005 (its prompt and the most output it may produce), more than the"
                        + " $0.0001 left of $0.0010 in the period ending ")
                .endsWith(" (spent $0.0004, $0.0005 reserved by calls in flight). Send max_tokens, or a lower one, to lower"
                        + " the call's worst case");
        next.abort();                                                 // whole refund
        assertThat(admit(limiter, "other", ALICE, 10).verdict().budget().remainingMicros()).isEqualTo(1000 - 400 - 500);
    }

    @Test
    void aModelPricedZeroIsFreeAndABudgetOfZeroRefuses() {
        RateLimiter free = limiter(0, "teams.team-a.budget=0.000001", "prices.free.input=0", "prices.free.output=0");
        for (int i = 0; i < 5; i++) {
            Admission admission = admit(free, "free", ALICE, 1000);
            assertThat(admission.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
            admission.complete(new Usage(1000, 1000, 0));
        }
        RateLimiter zero = limiter(1, "users.bob.budget=0", "prices.free.input=0", "prices.free.output=0");
        Admission refused = admit(zero, "free", new BudgetIdentity("bob-key", "bob", null), 1);
        assertThat(refused.outcome()).isEqualTo(Admission.Outcome.REFUSED);
        assertThat(refused.refusal().limit()).isZero();
    }

    @Test
    void aWorstCaseAboveTheBudgetIsRefusedOnAnEmptyCounter() {
        RateLimiter limiter = limiter(0, "teams.team-a.budget=0.000159");
        assertThat(admit(limiter, "m", ALICE, MAX_TOKENS).outcome()).isEqualTo(Admission.Outcome.REFUSED);
        assertThat(admit(limiter, "m", ALICE, MAX_TOKENS - 1).outcome()).isEqualTo(Admission.Outcome.ADMITTED);
    }

    @Test
    void recordedAdmitsWhileSpentIsBelowTheBudget() {
        RateLimiter limiter = limiter(0, "teams.team-a.budget=0.000200", "budget.admission=recorded");
        Admission first = admit(limiter, "m", ALICE, MAX_TOKENS);
        assertThat(first.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        first.complete(new Usage(PROMPT, 80, 0));                     // 200: exactly the budget
        Admission second = admit(limiter, "m", ALICE, MAX_TOKENS);
        assertThat(second.outcome()).isEqualTo(Admission.Outcome.REFUSED);
        assertThat(second.refusal().current()).isEqualTo(200);
    }

    @Test
    void aSoftBudgetWarnsAndNeverRefuses() {
        RateLimiter limiter = limiter(0, "teams.team-a.soft-budget=0.000100");
        for (int i = 0; i < 3; i++) {
            Admission admission = admit(limiter, "m", ALICE, 30);
            assertThat(admission.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
            assertThat(admission.verdict().budget().softReached()).isNotNegative();
            assertThat(admission.verdict().budget().softHeldMicros()).isEqualTo(100L * (i + 1));
            assertThat(admission.verdict().budget().hasBudget()).isFalse();
            admission.complete(new Usage(PROMPT, 30, 0));
        }
    }
}
