package dev.llmratelimit.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * The counter groups of each caller scope of a {@link CallerPlan}, built once per distinct plan:
 * one group per window the scope's limits use, the configured window's first; that first group
 * also holds the scope's parallel slots (alone, without a window, when the scope limits nothing in
 * the configured window). Bounded: beyond {@value #MAX_PLANS} plans the cache starts over. The
 * groups of a plan followed by those of a model's pool are built once too ({@link #before}), so a
 * store compiles the whole list once; a plan's own list (what a request for a model that is not
 * configured counts, with its budgets after it) is compiled once as well.
 */
final class CallerGroups {

    static final int MAX_PLANS = 10_000;

    private final ScopeWindows windows;
    private final long windowMillis;
    private final boolean sliding;
    /** A caller plan's groups, and those groups followed by each model pool's groups it was used with. */
    private static final class Built {
        /** Beyond this many model pools a caller's combined lists are built per request. */
        private static final int MAX_MODEL_POOLS = 16;

        final List<CounterGroup> groups;
        private volatile PlanGroups[][] combined = new PlanGroups[0][];

        Built(List<CounterGroup> groups) {
            this.groups = groups;
        }

        PlanGroups before(PlanGroups model) {
            PlanGroups[][] known = combined;
            for (PlanGroups[] pair : known) {
                if (pair[0] == model) {
                    return pair[1];
                }
            }
            PlanGroups all = PlanGroups.concat(groups, model);
            if (known.length < MAX_MODEL_POOLS) {
                PlanGroups[][] more = java.util.Arrays.copyOf(known, known.length + 1);
                more[known.length] = new PlanGroups[] {model, all};
                combined = more;
            }
            return all;
        }
    }

    private final StartingOverCache<CallerPlan, Built> built = new StartingOverCache<>(MAX_PLANS);

    /** @param windows the policy's windows; {@code windowMillis} and {@code sliding} are theirs */
    CallerGroups(ScopeWindows windows, long windowMillis, boolean sliding) {
        this.windows = windows;
        this.windowMillis = windowMillis;
        this.sliding = sliding;
    }

    /** The groups of the plan's scopes in scope order; empty for {@code null}. */
    List<CounterGroup> of(CallerPlan callers) {
        return callers == null ? List.of() : built(callers).groups;
    }

    /** The plan's groups followed by a model pool's ({@code model}): the same list every time. */
    PlanGroups before(CallerPlan callers, PlanGroups model) {
        if (callers == null) {
            return model;
        }
        Built caller = built(callers);
        return caller.groups.isEmpty() ? model : caller.before(model);
    }

    private Built built(CallerPlan callers) {
        Built groups = built.get(callers);
        return groups != null ? groups : built.keep(callers, new Built(build(callers)));
    }

    private List<CounterGroup> build(CallerPlan callers) {
        List<CounterGroup> groups = new ArrayList<>(4);
        ScopeWindows callerWindows = callers.windowMillis() == windowMillis ? windows
                : new ScopeWindows(callers.windowMillis(), sliding);
        for (CallerCounter counter : callers.counters()) {
            GroupKind kind = counter.scope().kind();
            long parallel = Limits.configured(counter.maxParallelRequests());
            boolean slot = parallel > 0;
            List<ScopeWindows.Window> scopeWindows = callerWindows.of(counter.limits(), false);
            boolean slotAlone = slot && (scopeWindows.isEmpty() || !scopeWindows.get(0).window().tag().isEmpty());
            if (slotAlone) {
                groups.add(new CounterGroup(kind, counter.id(), "", GroupWindow.NONE,
                        new Limits(Limits.NONE, Limits.NONE, parallel, Limits.NONE), Enforcement.ALWAYS,
                        new Increments(0, 0, 0, true)));
            }
            for (ScopeWindows.Window window : scopeWindows) {
                boolean holdsSlot = slot && !slotAlone && window.window().tag().isEmpty();
                groups.add(new CounterGroup(kind, counter.id(), "", window.window(),
                        new Limits(window.limits(), holdsSlot ? parallel : Limits.NONE, Limits.NONE),
                        Enforcement.ALWAYS, new Increments(1, 0, 0, holdsSlot)));
            }
        }
        return groups.isEmpty() ? List.of() : PlanGroups.of(groups);
    }
}
