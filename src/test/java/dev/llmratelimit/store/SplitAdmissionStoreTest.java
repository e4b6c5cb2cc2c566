package dev.llmratelimit.store;

import dev.llmratelimit.budget.BudgetIdentity;
import dev.llmratelimit.budget.BudgetPolicy;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.BudgetExtension;
import dev.llmratelimit.engine.CallerCounter;
import dev.llmratelimit.engine.CallerPlan;
import dev.llmratelimit.engine.CallerScope;
import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.GroupKind;
import dev.llmratelimit.engine.PlanGroups;
import dev.llmratelimit.engine.PromptTokens;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.policy.StoreFailureMode;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The split of one plan over a counter store and a budget store keeps the admission all or
 * nothing, and the verdict the filter sees is the one a single store gives (indexes in the whole plan).
 */
class SplitAdmissionStoreTest {

    private static final BudgetIdentity ALICE = new BudgetIdentity("sk-1", "alice", "team-a");
    private final MutableClock clock = new MutableClock(1_767_225_600_000L);
    private final MemoryAdmissionStore counters = new MemoryAdmissionStore(clock);
    private final MemoryAdmissionStore budgets = new MemoryAdmissionStore(clock);

    private RateLimiter limiter(String... budgetLines) {
        Map<String, String> props = properties(budgetLines);
        props.putAll(properties("models.m.rpm=10", "prices.m.input=1", "prices.m.output=2"));
        return new RateLimiter(PolicyParser.parse(props), new SplitAdmissionStore(counters, budgets, StoreFailureMode.FAIL_CLOSED),
                clock, 600_000, List.of(new BudgetExtension(BudgetPolicy.parse(props), clock)));
    }

    /** A key that may run one request at a time, 5 per minute; 40 prompt and up to 60 completion tokens (160 micro-dollars). */
    private static Admission admit(RateLimiter limiter) {
        CallerPlan key = new CallerPlan(List.of(new CallerCounter(CallerScope.KEY, "sk-1", 5, 0, 1)), 60_000, 600_000);
        return limiter.admit(AdmissionRequest.of("m", null, null).withCallers(key).withIdentity(ALICE)
                .withTokens(PromptTokens.known(40), 60));
    }

    @Test
    void aBudgetRefusalTakesBackEveryCounterTheOtherStoreApplied() {
        RateLimiter limiter = limiter("teams.team-a.budget=0.000300", "users.alice.soft-budget=0.000100");
        Admission first = admit(limiter);
        assertThat(first.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(first.verdict().budget().remainingMicros()).isEqualTo(300 - 160);
        assertThat(first.plan().group(first.verdict().budget().softReached()).id()).isEqualTo("soft:u:alice");
        assertThat(first.verdict().requestRemaining()).isEqualTo(10 - 0 - 1);
        first.complete(new Usage(40, 60, 0));                        // 160 spent: 140 left, less than a worst case
        for (int i = 0; i < 3; i++) {
            Admission refused = admit(limiter);
            assertThat(refused.outcome()).isEqualTo(Admission.Outcome.REFUSED);
            assertThat(refused.refusal().dimension()).isEqualTo(Dimension.MONEY);
            assertThat(refused.plan().group(refused.refusal().index()).kind()).isEqualTo(GroupKind.BUDGET);
            assertThat(refused.refusal().current()).isEqualTo(160);
            assertThat(refused.verdict().retryAfterSeconds()).isEqualTo(31L * 24 * 3600);   // to February
        }
        // neither the key's slot nor its requests nor the model's were kept by the refused decisions
        Admission cheap = limiter.admit(AdmissionRequest.of("m", null, null).withIdentity(ALICE)
                .withCallers(new CallerPlan(List.of(new CallerCounter(CallerScope.KEY, "sk-1", 5, 0, 1)), 60_000, 600_000))
                .withTokens(PromptTokens.known(40), 50));              // 140: exactly what is left
        assertThat(cheap.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(cheap.verdict().requestRemaining()).isEqualTo(10 - 1 - 1);
        assertThat(cheap.verdict().budget().remainingMicros()).isZero();
    }

    @Test
    void eachStoreIsHandedItsPartAsTheListItCompiledBefore() {
        RateLimiter limiter = limiter("teams.team-a.budget=1");
        Admission first = admit(limiter);
        first.complete(new Usage(40, 60, 0));
        Admission second = admit(limiter);
        second.complete(new Usage(40, 60, 0));
        assertThat(second.verdict().budget().remainingMicros()).isEqualTo(1_000_000 - 160 - 160);
        PlanGroups counted = second.plan().groups().head();
        PlanGroups budgeted = second.plan().groups().tail();
        assertThat(counted).extracting(CounterGroup::kind).containsExactly(GroupKind.KEY, GroupKind.MODEL, GroupKind.POOL);
        assertThat(budgeted).extracting(CounterGroup::kind).containsExactly(GroupKind.BUDGET);
        assertThat(counted.compiled(counters)).isNotNull().isSameAs(first.plan().groups().head().compiled(counters));
        assertThat(budgeted.compiled(budgets)).isNotNull().isSameAs(first.plan().groups().tail().compiled(budgets));
        assertThat(limiter.snapshot("m").requests()).isEqualTo(2);
    }

    @Test
    void theStatusPageReadsTheModelsCountersFromTheCounterStore() {
        RateLimiter limiter = limiter("teams.team-a.budget=1");
        admit(limiter).complete(new Usage(40, 60, 0));
        admit(limiter).abort();
        assertThat(limiter.snapshot("m").requests()).isEqualTo(2);
    }

    @Test
    void aCounterRefusalNeverReachesTheBudgetStore() {
        RateLimiter limiter = limiter("teams.team-a.budget=1");
        Admission holding = admit(limiter);                          // takes the key's only slot
        Admission refused = admit(limiter);
        assertThat(refused.outcome()).isEqualTo(Admission.Outcome.REFUSED);
        assertThat(refused.refusal().dimension()).isEqualTo(Dimension.PARALLEL_REQUESTS);
        assertThat(refused.refusal().index()).isZero();
        holding.abort();
        Admission next = admit(limiter);
        assertThat(next.verdict().budget().remainingMicros()).as("only this request holds money").isEqualTo(1_000_000 - 160);
    }
}
