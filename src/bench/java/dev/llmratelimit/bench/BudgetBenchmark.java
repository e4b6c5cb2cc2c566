package dev.llmratelimit.bench;

import dev.llmratelimit.budget.BudgetIdentity;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.PromptTokens;
import dev.llmratelimit.testsupport.Policies;
import dev.llmratelimit.usage.Usage;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.Arrays;

/**
 * One admission and its settlement with the in-memory store, with budgets off and on (a key and a
 * team budget, so two more counter groups in the plan): the price lookup, the worst-case cost, the
 * reservation and the settlement to the actual cost. Budgets are large enough that every call admits.
 */
@State(Scope.Benchmark)
public class BudgetBenchmark {

    private static final Usage USAGE = new Usage(400, 200, 0);
    private static final AdmissionRequest REQUEST = AdmissionRequest.of("gpt-4o", "prod", null)
            .withIdentity(new BudgetIdentity("bench-key", null, "bench-team"))
            .withTokens(PromptTokens.known(400), 500);

    private RateLimitRuntime withoutBudgets;
    private RateLimitRuntime withBudgets;

    @Setup
    public void setUp() {
        String[] common = {"models.gpt-4o.rpm=" + DecisionBenchmark.RPM, "models.gpt-4o.tpm=" + DecisionBenchmark.TPM,
                "reservation.prod=0.5", "reservation.dev=0.2", "window=60s",
                "prices.gpt-4o.input=2.50", "prices.gpt-4o.output=10"};
        withoutBudgets = RateLimitRuntime.create(Policies.properties(common), null);
        String[] budgeted = Arrays.copyOf(common, common.length + 2);
        budgeted[common.length] = "principals.bench-key.budget=1000000000";
        budgeted[common.length + 1] = "teams.bench-team.budget=1000000000";
        withBudgets = RateLimitRuntime.create(Policies.properties(budgeted), null);
    }

    @Benchmark
    public Admission budgetsOff() {
        return admitAndSettle(withoutBudgets);
    }

    @Benchmark
    public Admission budgetsOn() {
        return admitAndSettle(withBudgets);
    }

    private static Admission admitAndSettle(RateLimitRuntime runtime) {
        Admission admission = runtime.limiter().admit(REQUEST);
        admission.complete(USAGE);
        return admission;
    }
}
