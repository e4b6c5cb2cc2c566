package dev.llmratelimit.testsupport;

import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.Enforcement;
import dev.llmratelimit.engine.GroupKind;
import dev.llmratelimit.engine.GroupWindow;
import dev.llmratelimit.engine.Increments;
import dev.llmratelimit.engine.Limits;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.UsageCost;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** Plans built by hand for store tests: a model and one pool, optionally with caller groups in front. */
public final class Plans {

    private static final AtomicLong IDS = new AtomicLong();

    private Plans() {
    }

    /** A request id no other test plan has. */
    public static String newRequestId() {
        return "test-" + IDS.incrementAndGet();
    }

    /**
     * @param rpm     the model's requests per window, 0 for none (likewise {@code tpm})
     * @param pool    the pool's name; its limits are {@code poolRpm}, {@code poolTpm} (ignored where the model has none)
     * @param reserve the tokens the request reserves on model and pool, 0 for none
     */
    public static Plan modelPlan(String model, String pool, long rpm, long tpm, long poolRpm, long poolTpm,
                                 boolean poolsEnforced, double threshold, long windowMillis, boolean sliding,
                                 long reserve, CounterGroup... callers) {
        GroupWindow window = GroupWindow.rolling(windowMillis, sliding);
        Increments add = new Increments(1, reserve, 0, false);
        List<CounterGroup> groups = new ArrayList<>(List.of(callers));
        groups.add(new CounterGroup(GroupKind.MODEL, model, "", window,
                new Limits(rpm > 0 ? rpm : Limits.NONE, tpm > 0 ? tpm : Limits.NONE, Limits.NONE, Limits.NONE),
                Enforcement.ALWAYS, add));
        groups.add(new CounterGroup(GroupKind.POOL, model, pool, window,
                new Limits(rpm > 0 ? poolRpm : Limits.NONE, tpm > 0 ? poolTpm : Limits.NONE, Limits.NONE, Limits.NONE),
                poolsEnforced ? Enforcement.whenSaturated(threshold) : Enforcement.TRACKED, add));
        return new Plan(newRequestId(), model, pool, groups, 600_000, UsageCost.FREE);
    }

    /** A caller scope with these limits (0: none), counted in a fixed window. */
    public static CounterGroup caller(GroupKind kind, String id, long rpm, long tpm, long parallel, long windowMillis) {
        boolean windowed = rpm > 0 || tpm > 0;
        return new CounterGroup(kind, id, "", windowed ? GroupWindow.rolling(windowMillis, false) : GroupWindow.NONE,
                new Limits(Limits.configured(rpm), Limits.configured(tpm), Limits.configured(parallel), Limits.NONE),
                Enforcement.ALWAYS, new Increments(windowed ? 1 : 0, 0, 0, parallel > 0));
    }

    /** The same plan under a new request id, as the next request with the same limits. */
    public static Plan again(Plan plan) {
        return new Plan(newRequestId(), plan.model(), plan.pool(), plan.groups(), plan.leaseMillis(), plan.cost());
    }
}
