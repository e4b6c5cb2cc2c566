package dev.llmratelimit.engine;

import dev.llmratelimit.budget.BudgetIdentity;
import dev.llmratelimit.budget.BudgetPolicy;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A budget's groups are built once per identity, model and budget period: a request adds its worst
 * case only, what a store compiled for them is used again, and a new period gets groups of its own.
 */
class BudgetGroupsTest {

    private static final BudgetIdentity ALICE = new BudgetIdentity("sk-1", "alice", "team-a");
    /** 2026-01-01T00:00:00Z. */
    private final MutableClock clock = new MutableClock(1_767_225_600_000L);
    private final Map<String, String> props = properties("models.m.rpm=1000", "prices.m.input=1", "prices.m.output=2",
            "teams.team-a.budget=0.000300", "users.alice.soft-budget=0.000100");
    private final BudgetExtension budgets = new BudgetExtension(BudgetPolicy.parse(props), clock);

    private static PlanExtension.TokenEstimate tokens(long prompt, long output) {
        return new PlanExtension.TokenEstimate() {
            @Override
            public long promptTokens() {
                return prompt;
            }

            @Override
            public long outputTokens() {
                return output;
            }
        };
    }

    private PlanGroups contribute(long maxOutputTokens) {
        AdmissionRequest request = AdmissionRequest.of("m", null, null).withIdentity(ALICE)
                .withTokens(PromptTokens.known(40), maxOutputTokens);
        return (PlanGroups) budgets.contribute(request, tokens(40, maxOutputTokens)).groups();
    }

    @Test
    void eachRequestAddsItsOwnWorstCaseToGroupsCompiledOnce() {
        PlanGroups first = contribute(60);
        assertThat(first).extracting(CounterGroup::id).containsExactly("soft:u:alice", "t:team-a");
        assertThat(first).allSatisfy(group -> assertThat(group.increments().micros()).isEqualTo(40 + 2 * 60));
        first.compile(this, "compiled");

        PlanGroups second = contribute(10);
        assertThat(second).allSatisfy(group -> assertThat(group.increments().micros()).isEqualTo(40 + 2 * 10));
        assertThat(second.compiled(this)).isEqualTo("compiled");

        clock.advance(Duration.ofDays(31));                       // February: another period, other counters
        PlanGroups february = contribute(10);
        assertThat(february.get(0).window()).isNotEqualTo(second.get(0).window());
        assertThat(february.compiled(this)).isNull();
    }

    @Test
    void aBudgetSpentInOnePeriodIsWholeAgainInTheNext() {
        RateLimiter limiter = new RateLimiter(PolicyParser.parse(props), new MemoryAdmissionStore(clock), clock, 600_000,
                List.of(budgets));
        AdmissionRequest request = AdmissionRequest.of("m", null, null).withIdentity(ALICE)
                .withTokens(PromptTokens.known(40), 60);   // worst case 160 micro-dollars
        Admission january = limiter.admit(request);
        assertThat(january.verdict().budget().remainingMicros()).isEqualTo(300 - 160);
        january.complete(new Usage(40, 60, 0));
        assertThat(limiter.admit(request).outcome()).as("140 left, less than a worst case").isEqualTo(Admission.Outcome.REFUSED);

        clock.advance(Duration.ofDays(31));
        Admission february = limiter.admit(request);
        assertThat(february.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(february.verdict().budget().remainingMicros()).isEqualTo(300 - 160);
    }

    @Test
    void aModelNotConfiguredCountsItsCallersAndBudgetsOnCountersCompiledOnce() {
        Map<String, String> withOther = properties("models.m.rpm=1000", "prices.other.input=1", "prices.other.output=2",
                "teams.team-a.budget=0.000300");
        MemoryAdmissionStore store = new MemoryAdmissionStore(clock);
        RateLimiter limiter = new RateLimiter(PolicyParser.parse(withOther), store, clock, 600_000,
                List.of(new BudgetExtension(BudgetPolicy.parse(withOther), clock)));
        CallerPlan key = new CallerPlan(List.of(new CallerCounter(CallerScope.KEY, "sk-1", 2, 0, 0)), 60_000, 600_000);
        AdmissionRequest request = AdmissionRequest.of("other", null, null).withCallers(key).withIdentity(ALICE)
                .withTokens(PromptTokens.known(40), 10);   // worst case 60 micro-dollars
        Admission first = limiter.admit(request);
        Admission second = limiter.admit(request);
        assertThat(first.plan().groups()).extracting(CounterGroup::kind).containsExactly(GroupKind.KEY, GroupKind.BUDGET);
        assertThat(second.verdict().budget().remainingMicros()).isEqualTo(300 - 60 - 60);
        assertThat(limiter.admit(request).refusal().dimension()).as("the key's 2 requests a minute").isEqualTo(Dimension.REQUESTS);
        assertThat(second.plan().groups().compiled(store)).isNotNull().isSameAs(first.plan().groups().compiled(store));
    }

    @Test
    void theGroupsKeptAreBounded() {
        for (int i = 0; i <= BudgetExtension.MAX_KEPT; i++) {
            AdmissionRequest request = AdmissionRequest.of("m", null, null)
                    .withIdentity(new BudgetIdentity("sk-" + i, null, "team-a"));
            assertThat(budgets.contribute(request, tokens(1, 1)).groups()).hasSize(1);
        }
        assertThat(budgets.kept()).isBetween(1, BudgetExtension.MAX_KEPT);
    }
}
