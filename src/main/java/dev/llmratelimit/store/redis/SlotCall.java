package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.GroupKind;
import dev.llmratelimit.engine.Enforcement;
import dev.llmratelimit.engine.GroupWindow;
import dev.llmratelimit.engine.Increments;
import dev.llmratelimit.engine.Limits;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.PlanGroups;
import dev.llmratelimit.engine.PoolSharing;
import dev.llmratelimit.engine.Settlement;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The part of a plan that one script call executes: the groups of one hash slot (all of them with
 * standalone or sentinel Redis), their keys, and the arguments of {@code admit.lua} and
 * {@code settle.lua} in those scripts' order.
 */
final class SlotCall {

    /**
     * What a call of a list of groups holds whatever the request: which groups go to it, their keys
     * and where each group's keys are among them. Worked out once per list of groups (and shared by
     * the lists with the same counters, see {@link PlanGroups#compiled}).
     *
     * @param coversPlan whether the call holds every group of the plan, in order (its sub-plan is the plan)
     */
    private record Layout(int[] planIndexes, boolean coversPlan, List<Object> keys, int[] hashIndex, int[] slotsIndex,
                          int[] leasesIndex, int[] activityIndex, String[] suffix, ConstantArguments[] constants) {

        static Layout of(int groupCount, List<Integer> indexes, List<GroupKeys> groupKeys) {
            int[] planIndexes = indexes.stream().mapToInt(Integer::intValue).toArray();
            Map<String, Integer> keyIndex = new LinkedHashMap<>();
            int[] hashIndex = new int[planIndexes.length];
            int[] slotsIndex = new int[planIndexes.length];
            int[] leasesIndex = new int[planIndexes.length];
            int[] activityIndex = new int[planIndexes.length];
            String[] suffix = new String[planIndexes.length];
            for (int i = 0; i < planIndexes.length; i++) {
                GroupKeys k = groupKeys.get(planIndexes[i]);
                hashIndex[i] = k.hash() == null ? 0 : keyIndex.computeIfAbsent(k.hash(), h -> keyIndex.size() + 1);
                slotsIndex[i] = k.slots() == null ? 0 : keyIndex.computeIfAbsent(k.slots(), h -> keyIndex.size() + 1);
                leasesIndex[i] = k.leases() == null ? 0 : keyIndex.computeIfAbsent(k.leases(), h -> keyIndex.size() + 1);
                activityIndex[i] = k.activity() == null ? 0 : keyIndex.computeIfAbsent(k.activity(), h -> keyIndex.size() + 1);
                suffix[i] = k.suffix();
            }
            return new Layout(planIndexes, planIndexes.length == groupCount, List.copyOf(keyIndex.keySet()),
                    hashIndex, slotsIndex, leasesIndex, activityIndex, suffix, new ConstantArguments[planIndexes.length]);
        }
    }

    /**
     * The {@code admit.lua} arguments of a group that no request changes, written once: those before
     * its increments, each dimension's letter and limit, and its sharing. Kept per group of a layout
     * (written by whichever request needs them first; each is immutable) and used while the group
     * holds the same window, limits, enforcement and sharing.
     */
    private record ConstantArguments(GroupWindow window, Limits limits, Enforcement enforcement, PoolSharing sharing,
                                     ScriptArguments.Fragment head, List<Dimension> dimensions,
                                     ScriptArguments.Fragment[] dimensionHeads, ScriptArguments.Fragment tail) {

        boolean describes(CounterGroup group) {
            return window == group.window() && limits == group.limits() && enforcement == group.enforcement()
                    && sharing == group.sharing();
        }
    }

    /** The layouts of a list's calls, for one key prefix and one way of splitting by slot. */
    private record Layouts(String prefix, boolean bySlot, List<Layout> calls) {
    }

    final int[] planIndexes;
    final Plan subPlan;
    final List<Object> keys;
    private final Layout layout;

    private SlotCall(Plan plan, Layout layout) {
        planIndexes = layout.planIndexes;
        if (layout.coversPlan) {
            subPlan = plan;
        } else {
            List<CounterGroup> groups = new ArrayList<>(planIndexes.length);
            for (int index : planIndexes) {
                groups.add(plan.group(index));
            }
            subPlan = plan.withGroups(groups);
        }
        this.layout = layout;
        keys = new ArrayList<>(layout.keys.size() + 1);
        keys.addAll(layout.keys);
        keys.add(layout.keys.get(0) + ":req:" + plan.requestId());
    }

    /**
     * The calls of a plan, in the order of their first group: one for all groups, or with
     * {@code bySlot} one per cluster hash slot; their layouts are kept on the plan's list as
     * {@code store}'s.
     */
    static List<SlotCall> of(Plan plan, Object store, String prefix, boolean bySlot) {
        List<Layout> layouts = layoutsOf(plan.groups(), store, prefix, bySlot);
        if (layouts.size() == 1) {
            return List.of(new SlotCall(plan, layouts.get(0)));
        }
        List<SlotCall> calls = new ArrayList<>(layouts.size());
        for (Layout layout : layouts) {
            calls.add(new SlotCall(plan, layout));
        }
        return calls;
    }

    /** The layouts of the list's calls, as compiled on the list when they were worked out for this prefix and split. */
    private static List<Layout> layoutsOf(PlanGroups groups, Object store, String prefix, boolean bySlot) {
        if (groups.compiled(store) instanceof Layouts known && known.bySlot == bySlot && known.prefix.equals(prefix)) {
            return known.calls;
        }
        List<GroupKeys> groupKeys = new ArrayList<>(groups.size());
        for (CounterGroup group : groups) {
            groupKeys.add(GroupKeys.of(prefix, group));
        }
        Map<Integer, List<Integer>> bySlotIndexes = new LinkedHashMap<>();
        for (int i = 0; i < groupKeys.size(); i++) {
            int slot = bySlot ? HashSlot.ofTag(groupKeys.get(i).tag()) : 0;
            bySlotIndexes.computeIfAbsent(slot, s -> new ArrayList<>(4)).add(i);
        }
        List<Layout> layouts = new ArrayList<>(bySlotIndexes.size());
        for (List<Integer> indexes : bySlotIndexes.values()) {
            layouts.add(Layout.of(groups.size(), indexes, groupKeys));
        }
        groups.compile(store, new Layouts(prefix, bySlot, List.copyOf(layouts)));
        return layouts;
    }

    /** The key the call is routed by. */
    String routingKey() {
        return (String) keys.get(0);
    }

    ScriptArguments admitArgs() {
        List<CounterGroup> groups = subPlan.groups();
        ScriptArguments args = new ScriptArguments()
                .add(subPlan.requestId())
                .add(subPlan.leaseMillis())
                .add(groups.size());
        for (int i = 0; i < groups.size(); i++) {
            CounterGroup group = groups.get(i);
            ConstantArguments constant = constantArguments(i, group);
            Increments add = group.increments();
            args.add(constant.head())
                    .add(add.micros())
                    .add(add.slot())
                    .add(constant.dimensions().size());
            for (int d = 0; d < constant.dimensions().size(); d++) {
                args.add(constant.dimensionHeads()[d])
                        .add(add.of(constant.dimensions().get(d)));
            }
            args.add(constant.tail());
        }
        return args;
    }

    private ConstantArguments constantArguments(int i, CounterGroup group) {
        ConstantArguments known = layout.constants[i];
        if (known != null && known.describes(group)) {
            return known;
        }
        ScriptArguments head = new ScriptArguments();
        windowArgs(head, i, group.window());
        Limits limits = group.limits();
        Enforcement enforcement = group.enforcement();
        head.add(group.kind() == GroupKind.MODEL)
                .add(limits.parallel())
                .add(limits.micros())
                .add(switch (enforcement.mode()) {
                    case ALWAYS -> 0L;
                    case WHEN_SATURATED -> 1L;
                    case TRACKED -> 2L;
                })
                .add(enforcement.threshold());
        List<Dimension> dimensions = dimensionsOf(group);
        PoolSharing sharing = group.sharing();
        ScriptArguments.Fragment[] dimensionHeads = new ScriptArguments.Fragment[dimensions.size()];
        for (int d = 0; d < dimensionHeads.length; d++) {
            Dimension dimension = dimensions.get(d);
            dimensionHeads[d] = new ScriptArguments()
                    .add(dimension.field() + layout.suffix[i])
                    // a work-conserving pool's limit is the model's, times the share the script works out
                    .add(sharing == null ? limits.of(dimension) : sharing.capacity()[dimension.index()])
                    .fragment();
        }
        ScriptArguments tail = new ScriptArguments();
        sharingArgs(tail, i, sharing);
        ConstantArguments built = new ConstantArguments(group.window(), limits, enforcement, sharing, head.fragment(),
                List.copyOf(dimensions), dimensionHeads, tail.fragment());
        layout.constants[i] = built;
        return built;
    }

    /** The number of pools (0: a fixed share), then the activity hash's index, this pool's (1-based), each pool and its share. */
    private void sharingArgs(ScriptArguments args, int i, PoolSharing sharing) {
        if (sharing == null) {
            args.add(0L);
            return;
        }
        args.add(sharing.pools().size())
                .add(layout.activityIndex[i])
                .add(sharing.self() + 1);
        for (int k = 0; k < sharing.pools().size(); k++) {
            args.add(sharing.pools().get(k))
                    .add(sharing.shares()[k]);
        }
    }

    /** @param countedIn per plan group the end of the window its decision counted in; {@code null}: not known */
    ScriptArguments settleArgs(Settlement settlement, long[] countedIn) {
        List<CounterGroup> groups = subPlan.groups();
        ScriptArguments args = new ScriptArguments()
                .add(subPlan.requestId())
                .add(subPlan.leaseMillis())
                .add(groups.size())
                .add(settlement.micros())
                .add(settlement.cancel())
                .add(settlement.unanswered() ? 2L : settlement.late() ? 1L : 0L);
        for (int i = 0; i < groups.size(); i++) {
            CounterGroup group = groups.get(i);
            windowArgs(args, i, group.window());
            Increments add = group.increments();
            args.add(add.micros())
                    .add(group.countsMoney())
                    .add(countedIn == null ? 0 : countedIn[planIndexes[i]]);
            List<Dimension> dimensions = dimensionsOf(group);
            args.add(dimensions.size());
            for (Dimension dimension : dimensions) {
                args.add(dimension.field() + layout.suffix[i])
                        .add(add.of(dimension))
                        .add(dimension.isTokens() && group.limits().limits(dimension))
                        .add(settlement.used(dimension));
            }
        }
        return args;
    }

    /**
     * The windowed dimensions the scripts handle for a group, in {@link Dimension#WINDOWED} order:
     * those it limits (a count nothing limits is never read, so it is not kept); none without
     * counters.
     */
    static List<Dimension> dimensionsOf(CounterGroup group) {
        if (!group.window().counts()) {
            return List.of();
        }
        List<Dimension> dimensions = new ArrayList<>(Dimension.WINDOWED.size());
        for (Dimension dimension : Dimension.WINDOWED) {
            if (group.limits().limits(dimension)) {
                dimensions.add(dimension);
            }
        }
        return dimensions;
    }

    private void windowArgs(ScriptArguments args, int i, GroupWindow window) {
        args.add(layout.hashIndex[i])
                .add(layout.slotsIndex[i])
                .add(layout.leasesIndex[i])
                .add(layout.suffix[i])
                .add(window.millis())
                .add(window.sliding())
                .add(window.periodEnd());
    }
}
